import { Router, type Request, type Response } from "express";
import type { Redis } from "ioredis";
import { z } from "zod";
import { isUuid, projectIdOf } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { AppError, clientAddress, ErrorCode, parseInput } from "@emailsvc/http";
import type { Logger } from "@emailsvc/observability";
import { appendAudit } from "../audit/audit.repo";
import {
  deleteSession,
  deleteSessionsOf,
  findUserByEmail,
  insertUser,
  listMembers,
  membershipsOf,
  ownerCount,
  putMember,
  removeMember,
  type Role,
  setPassword,
  ROLES,
  roleIn,
} from "./accounts.repo";
import { actorOf, isPlatform, SESSION_COOKIE, sessionIdOf, sessionToken } from "./admin-access";
import { assertMayGrant } from "./may-grant";
import { hashPassword, passwordProblem } from "./password";
import { type SignInConfig, signIn, signInRefusal } from "./sign-in";

export const signInSchema = z.object({
  email: z.string({ error: "email is required" }).trim().min(3, { error: "email is required" }).max(320),
  password: z.string({ error: "password is required" }).min(1, { error: "password is required" }).max(1000),
});
export const createUserSchema = z.object({
  email: z.email({ error: "email must be an email address" }).max(320),
  password: z.string({ error: "password is required" }),
  name: z.string().trim().max(200).nullish(),
  platform_owner: z.boolean().optional(),
});
export const setPasswordSchema = z.object({
  email: z.email({ error: "email must be an email address" }),
  password: z.string({ error: "password is required" }),
});
export const putMemberSchema = z.object({
  email: z.email({ error: "email must be an email address" }),
  role: z.enum(ROLES as [Role, ...Role[]], { error: `role must be one of ${ROLES.join(", ")}` }),
});

export interface AccountsDeps {
  db: Db;
  redis: Pick<Redis, "eval" | "get" | "del">;
  logger: Logger;
  signIn: SignInConfig;
  /** Secure cookies: `auto` follows the request (https, or X-Forwarded-Proto https behind the gateway). */
  secureCookies: boolean | "auto";
}

/**
 * Sign-in, sign-out (this browser or everywhere), who am I, users (platform owners), and a project's members.
 * Mounted on the admin API after `adminAccess`, which lets only POST /auth/sign-in through without a credential.
 */
export function accountsRouter(deps: AccountsDeps): Router {
  const r = Router();
  const audit = (req: Request, e: Parameters<typeof appendAudit>[1]) =>
    appendAudit(deps.db, e).catch((err: unknown) =>
      deps.logger.error({ err, action: e.action }, "audit event not written"),
    );

  r.post("/auth/sign-in", async (req, res) => {
    const body = parseInput(signInSchema, req.body);
    const ip = clientAddress(req);
    const out = await signIn(
      { db: deps.db, redis: deps.redis, config: deps.signIn },
      { email: body.email, password: body.password, ip, userAgent: req.header("user-agent") ?? null },
    );
    const base = { route: "POST /admin/auth/sign-in", ip, userAgent: req.header("user-agent") ?? null };
    if (out.kind === "refused") {
      const err = signInRefusal(out.reason);
      await audit(req, {
        ...base,
        projectId: null,
        actorType: "anonymous",
        actorId: null,
        actorEmail: body.email.trim().toLowerCase().slice(0, 320),
        action: out.reason === "throttled" ? "auth.sign_in_throttled" : "auth.sign_in_failed",
        status: out.reason === "throttled" ? 429 : 401,
      });
      throw err;
    }
    await setSessionCookie(deps, req, res, out);
    await audit(req, {
      ...base,
      projectId: null,
      actorType: "user",
      actorId: out.user.id,
      actorEmail: out.user.email,
      action: "auth.sign_in",
      status: 200,
    });
    res.json({
      success: true,
      user: {
        id: out.user.id,
        email: out.user.email,
        name: out.user.name,
        platform_owner: out.user.platformOwner,
      },
      csrf_token: out.csrfToken,
      memberships: (await membershipsOf(deps.db, out.user.id)).map(membershipBody),
    });
  });

  r.post("/auth/sign-out", async (_req, res) => {
    const actor = actorOf(res);
    if (actor.type === "user") await deleteSession(deps.db, actor.sessionId);
    res.clearCookie(SESSION_COOKIE, { path: "/" });
    res.json({ success: true });
  });

  r.post("/auth/sign-out-everywhere", async (_req, res) => {
    const actor = actorOf(res);
    if (actor.type !== "user") throw new AppError(ErrorCode.VALIDATION, "Only a signed-in user has sessions");
    const ended = await deleteSessionsOf(deps.db, actor.user.id);
    res.clearCookie(SESSION_COOKIE, { path: "/" });
    res.json({ success: true, sessions_ended: ended });
  });

  r.get("/auth/me", async (_req, res) => {
    const actor = actorOf(res);
    if (actor.type === "token")
      return void res.json({ success: true, user: null, token: true, memberships: [] });
    res.json({
      success: true,
      user: {
        id: actor.user.id,
        email: actor.user.email,
        name: actor.user.name,
        platform_owner: actor.user.platformOwner,
      },
      csrf_token: actor.csrfToken,
      memberships: (await membershipsOf(deps.db, actor.user.id)).map(membershipBody),
    });
  });

  // A signed-in user who is not a platform owner sees only the projects they belong to.
  r.get("/projects", async (_req, res, next) => {
    const actor = actorOf(res);
    if (isPlatform(actor) || actor.type !== "user") return next();
    const memberships = await membershipsOf(deps.db, actor.user.id);
    res.json({
      success: true,
      projects: memberships.map((m) => ({ id: m.projectId, name: m.projectName, role: m.role })),
      next_cursor: null,
    });
  });

  r.post("/users", async (req, res) => {
    if (!isPlatform(actorOf(res)))
      throw new AppError(ErrorCode.FORBIDDEN, "Forbidden: only a platform owner may do this");
    const body = parseInput(createUserSchema, req.body);
    const problem = passwordProblem(body.password);
    if (problem) throw new AppError(ErrorCode.VALIDATION, problem);
    const user = await insertUser(deps.db, {
      email: body.email,
      name: body.name ?? null,
      passwordHash: await hashPassword(body.password),
      platformOwner: body.platform_owner ?? false,
    });
    if (!user)
      throw new AppError(
        ErrorCode.CONFLICT,
        `A user with the email ${body.email.toLowerCase()} exists already`,
      );
    res.status(201).json({
      success: true,
      user: { id: user.id, email: user.email, name: user.name, platform_owner: user.platformOwner },
    });
  });

  // An operator's reset of a user's password (platform owners and the admin token): every session of theirs ends.
  r.put("/users/password", async (req, res) => {
    if (!isPlatform(actorOf(res)))
      throw new AppError(ErrorCode.FORBIDDEN, "Forbidden: only a platform owner may do this");
    const body = parseInput(setPasswordSchema, req.body);
    const problem = passwordProblem(body.password);
    if (problem) throw new AppError(ErrorCode.VALIDATION, problem);
    const user = await findUserByEmail(deps.db, body.email);
    if (!user) throw new AppError(ErrorCode.NOT_FOUND, `No user with the email ${body.email.toLowerCase()}`);
    await setPassword(deps.db, user.id, await hashPassword(body.password));
    const ended = await deleteSessionsOf(deps.db, user.id);
    res.json({ success: true, user: { id: user.id, email: user.email }, sessions_ended: ended });
  });

  r.get("/projects/:projectId/members", async (req, res) => {
    const projectId = projectParam(req);
    res.json({
      success: true,
      members: (await listMembers(deps.db, projectId)).map((m) => ({
        user_id: m.userId,
        email: m.email,
        name: m.name,
        role: m.role,
        since: m.since.toISOString(),
      })),
    });
  });

  r.put("/projects/:projectId/members", async (req, res) => {
    const projectId = projectParam(req);
    const body = parseInput(putMemberSchema, req.body);
    await mayGrant(res, projectId, body.role);
    const user = await findUserByEmail(deps.db, body.email);
    if (!user)
      throw new AppError(
        ErrorCode.NOT_FOUND,
        `No user with the email ${body.email.toLowerCase()}: invite them instead`,
      );
    if (
      body.role !== "owner" &&
      (await roleIn(deps.db, projectId, user.id)) === "owner" &&
      (await ownerCount(deps.db, projectId)) <= 1
    )
      throw new AppError(
        ErrorCode.CONFLICT,
        "A project keeps at least one owner: make someone else owner first",
      );
    await putMember(deps.db, projectId, user.id, body.role);
    res.json({ success: true, member: { user_id: user.id, email: user.email, role: body.role } });
  });

  r.delete("/projects/:projectId/members/:userId", async (req, res) => {
    const projectId = projectParam(req);
    const userId = String(req.params.userId);
    if (!isUuid(userId)) throw new AppError(ErrorCode.VALIDATION, "userId must be a UUID");
    const role = await roleIn(deps.db, projectId, userId);
    if (!role) throw new AppError(ErrorCode.NOT_FOUND, "Not a member of this project");
    await mayGrant(res, projectId, role);
    if (role === "owner" && (await ownerCount(deps.db, projectId)) <= 1)
      throw new AppError(
        ErrorCode.CONFLICT,
        "A project keeps at least one owner: make someone else owner first",
      );
    await removeMember(deps.db, projectId, userId);
    res.json({ success: true });
  });

  const mayGrant = (res: Response, projectId: string, role: Role) =>
    assertMayGrant(deps.db, actorOf(res), projectId, role);

  return r;
}

/**
 * The new session's cookie (HttpOnly, SameSite=Strict, Secure behind TLS), ending whatever session this browser
 * had: rotation, so a session id fixed before sign-in is never carried over.
 */
export async function setSessionCookie(
  deps: Pick<AccountsDeps, "db" | "secureCookies">,
  req: Request,
  res: Response,
  session: { token: string; expiresAt: Date },
): Promise<void> {
  const old = sessionToken(req);
  if (old) await deleteSession(deps.db, sessionIdOf(old));
  res.cookie(SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: "strict",
    secure: deps.secureCookies === "auto" ? req.secure : deps.secureCookies,
    path: "/",
    expires: session.expiresAt,
  });
}

function projectParam(req: Request) {
  const id = String(req.params.projectId);
  if (!isUuid(id)) throw new AppError(ErrorCode.VALIDATION, "projectId must be a UUID");
  return projectIdOf(id);
}

const membershipBody = (m: { projectId: string; projectName: string; role: Role }) => ({
  project_id: m.projectId,
  project_name: m.projectName,
  role: m.role,
});
