import { createHash, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { isUuid } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { AppError, bearerToken, ErrorCode } from "@emailsvc/http";
import { type Role, roleIn, touchSession, type UserRow } from "./accounts.repo";

// Who may call the admin API (issue 45): the admin token (the CLI and automation: every project, as before), or a
// signed-in user's session cookie, whose every change carries the session's CSRF token and comes from an allowed
// Origin, and whose role in the project the route names allows the call. Checked here, in the API, whatever the
// dashboard shows.

export const SESSION_COOKIE = "emailsvc_session";

export type Actor = { type: "token" } | { type: "user"; user: UserRow; sessionId: string; csrfToken: string };

export interface AccessConfig {
  adminToken: string;
  /** a session unused this long ends */
  idleMs: number;
  /** Origins a signed-in browser's changes may come from, besides the admin listener's own. */
  allowedOrigins: readonly string[];
}

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/**
 * POSTs that only read: a body too rich for a query string (the segment builder's rules), answered without a
 * change. Every member may ask, and the audit log does not record them.
 */
const READ_ONLY_POSTS = [/^\/segments\/preview$/];

/** Whether `POST /admin/projects/:id<rest>` only reads. */
export const isReadOnlyPost = (method: string, rest: string): boolean =>
  method === "POST" && READ_ONLY_POSTS.some((r) => r.test(rest));

/** The role a call needs in its project: reads are for every member, keys, team and settings for admins. */
export function requiredRole(method: string, rest: string): Role {
  if (method === "GET" || method === "HEAD" || isReadOnlyPost(method, rest)) return "viewer";
  if (rest === "" && method === "DELETE") return "owner";
  if (rest === "" || /^\/(keys|members|invitations)(\/|$)/.test(rest)) return "admin";
  return "member";
}

/** Routes a signed-in user reaches outside a project (the rest are the platform owner's and the token's). */
const USER_ROUTES = [/^GET \/projects\/?$/, /^(GET|POST) \/auth\//, /^GET \/openapi\.json$/];

/**
 * Routes anyone reaches: signing in, and an invitation's page and its accept (the link's token is the credential).
 * A browser's POST to them must come from an allowed Origin (no login CSRF: another site cannot sign a browser in
 * to an account of its choosing); a session cookie, when valid, makes the caller the actor (an existing user who
 * accepts an invitation), and the route asks for its CSRF token when it acts on that session.
 */
const PUBLIC_ROUTES = [
  /^POST \/auth\/sign-in$/,
  /^GET \/invitations\/[^/]+$/,
  /^POST \/invitations\/[^/]+\/accept$/,
];

/** Whether a change's Origin is the admin listener's own or one of DASHBOARD_ORIGINS. */
const originAllowed = (req: Request, origin: string, allowed: readonly string[]) =>
  origin === `${req.protocol}://${req.get("host")}` || allowed.includes(origin);
const MSG_FOREIGN_ORIGIN = "Refused: the request does not come from the dashboard's origin";

export const sessionIdOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** The session token from the Cookie header. */
export function sessionToken(req: Request): string | null {
  for (const part of (req.header("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE)
      return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

const sameBytes = (a: string, b: string) => {
  const x = createHash("sha256").update(a).digest();
  const y = createHash("sha256").update(b).digest();
  return timingSafeEqual(x, y);
};

/** A change made with a session must carry its CSRF token (x-csrf-token). */
export function assertCsrf(req: Request, csrfToken: string): void {
  const csrf = req.header("x-csrf-token") ?? "";
  if (!csrf || !sameBytes(csrf, csrfToken))
    throw new AppError(ErrorCode.FORBIDDEN, "Refused: missing or invalid CSRF token (x-csrf-token)");
}

export function actorOf(res: Response): Actor {
  const actor = res.locals.actor as Actor | undefined;
  if (!actor) throw new AppError(ErrorCode.UNAUTHORIZED, "Sign in first");
  return actor;
}

/** Whether the actor is the token or a platform owner: every project, every route. */
export const isPlatform = (a: Actor) => a.type === "token" || a.user.platformOwner;

export function adminAccess(deps: { db: Db }, cfg: AccessConfig): RequestHandler {
  return (req, res, next) => {
    const route = `${req.method} ${req.path}`;
    const token = bearerToken(req.header("authorization")) ?? req.header("x-admin-token");
    if (token) {
      if (!sameBytes(token, cfg.adminToken))
        return next(new AppError(ErrorCode.UNAUTHORIZED, "Unauthorized: invalid or missing admin token"));
      res.locals.actor = { type: "token" } satisfies Actor;
      return next();
    }
    if (PUBLIC_ROUTES.some((r) => r.test(route))) {
      // A client that is not a browser sends no Origin (the CLI, curl, tests); a browser always does on a POST.
      const origin = req.header("origin");
      if (req.method === "POST" && origin && !originAllowed(req, origin, cfg.allowedOrigins))
        return next(new AppError(ErrorCode.FORBIDDEN, MSG_FOREIGN_ORIGIN));
      const cookie = sessionToken(req);
      if (!cookie) return next();
      const sessionId = sessionIdOf(cookie);
      return void touchSession(deps.db, sessionId, cfg.idleMs).then((session) => {
        if (session && !session.user.disabled)
          res.locals.actor = {
            type: "user",
            user: session.user,
            sessionId,
            csrfToken: session.csrfToken,
          } satisfies Actor;
        next();
      }, next);
    }
    const cookie = sessionToken(req);
    if (!cookie)
      return next(new AppError(ErrorCode.UNAUTHORIZED, "Unauthorized: invalid or missing admin token"));
    const sessionId = sessionIdOf(cookie);
    (async () => {
      const session = await touchSession(deps.db, sessionId, cfg.idleMs);
      if (!session || session.user.disabled)
        throw new AppError(ErrorCode.UNAUTHORIZED, "Your session has ended: sign in again");
      const actor: Actor = { type: "user", user: session.user, sessionId, csrfToken: session.csrfToken };
      res.locals.actor = actor;
      if (!["GET", "HEAD", "OPTIONS"].includes(req.method)) {
        // A change from a signed-in browser: from our own pages only (SameSite=Strict keeps the cookie off
        // cross-site requests; the Origin and the CSRF token make sure of it).
        const origin = req.header("origin");
        if (!origin || !originAllowed(req, origin, cfg.allowedOrigins))
          throw new AppError(ErrorCode.FORBIDDEN, MSG_FOREIGN_ORIGIN);
        assertCsrf(req, session.csrfToken);
      }
      if (isPlatform(actor)) return;
      const m = /^\/projects\/([^/]+)(\/.*)?$/.exec(req.path);
      if (m && m[1] !== undefined) {
        const projectId = m[1];
        const role = isUuid(projectId) ? await roleIn(deps.db, projectId, session.user.id) : null;
        // not a member: as if the project did not exist, so ids of other tenants' projects are not confirmed
        if (!role) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
        const needed = requiredRole(req.method, (m[2] ?? "").replace(/\/$/, ""));
        if (RANK[role] < RANK[needed])
          throw new AppError(
            ErrorCode.FORBIDDEN,
            `Forbidden: this needs the ${needed} role in the project; you are ${role === "admin" ? "an" : "a"} ${role}`,
          );
        return;
      }
      if (!USER_ROUTES.some((r) => r.test(route)))
        throw new AppError(ErrorCode.FORBIDDEN, "Forbidden: only a platform owner may do this");
    })().then(() => next(), next);
  };
}
