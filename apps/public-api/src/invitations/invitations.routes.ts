import { type Request, type Response, Router } from "express";
import { z } from "zod";
import { isUuid } from "@emailsvc/contracts";
import { AppError, clientAddress, ErrorCode, parseInput } from "@emailsvc/http";
import { findUserByEmail, membershipsOf, type Role, ROLES } from "../accounts/accounts.repo";
import { setSessionCookie } from "../accounts/accounts.routes";
import { type Actor, actorOf, assertCsrf } from "../accounts/admin-access";
import { assertMayGrant } from "../accounts/may-grant";
import { projectOf } from "../projects/project-of";
import { acceptInvitation, lookUpInvitation } from "./accept-invitation";
import { hashInvitationToken } from "./invitation-token";
import type { InvitationsDeps } from "./invitations-deps";
import {
  findInvitation,
  type InvitationRow,
  listPendingInvitations,
  revokeInvitation,
} from "./invitations.repo";
import { type InvitationSent, inviteMember, resendInvitation } from "./invite-member";

export const inviteSchema = z.object({
  email: z.email({ error: "email must be an email address" }).max(320),
  role: z.enum(ROLES as [Role, ...Role[]], { error: `role must be one of ${ROLES.join(", ")}` }),
});
export const acceptInvitationSchema = z.object({
  /** the new user's name; ignored when the invitee has an account and is signed in */
  name: z.string().trim().max(200).optional(),
  password: z.string().max(1000).optional(),
});

/**
 * Invitations (issue 45): a project's admins invite, list, resend and revoke (project routes: adminAccess checks
 * the admin role); anyone holding a link sees whose invitation it is and accepts it (public routes: the token is
 * the credential, behind the sign-in throttle's budget). Each change names its audit event.
 */
export function invitationsRouter(deps: InvitationsDeps): Router {
  const r = Router();
  const linkBase = (req: Request) =>
    deps.config.publicUrl ?? `${req.protocol}://${req.get("host")}/dashboard`;
  const audited = (
    res: Response,
    action: string,
    projectId: string | null,
    detail: Record<string, unknown>,
  ) => {
    res.locals.auditAction = action;
    if (projectId) res.locals.auditProjectId = projectId;
    res.locals.auditDetail = detail;
  };

  r.get("/projects/:projectId/invitations", async (req, res) => {
    const projectId = await projectOf(deps.db, req.params.projectId);
    res.json({ success: true, invitations: (await listPendingInvitations(deps.db, projectId)).map(view) });
  });

  r.post("/projects/:projectId/invitations", async (req, res) => {
    const body = parseInput(inviteSchema, req.body);
    audited(res, "user.invited", null, { email: body.email.toLowerCase(), role: body.role });
    const projectId = await projectOf(deps.db, req.params.projectId);
    const sent = await inviteMember(deps, {
      projectId,
      email: body.email,
      role: body.role,
      actor: actorOf(res),
      linkBase: linkBase(req),
    });
    audited(res, "user.invited", null, detailOf(sent));
    res.status(201).json(sentBody(sent));
  });

  r.post("/projects/:projectId/invitations/:invitationId/resend", async (req, res) => {
    res.locals.auditAction = "invitation.resent";
    const projectId = await projectOf(deps.db, req.params.projectId);
    const sent = await resendInvitation(deps, {
      projectId,
      id: invitationId(req),
      actor: actorOf(res),
      linkBase: linkBase(req),
    });
    audited(res, "invitation.resent", null, detailOf(sent));
    res.json(sentBody(sent));
  });

  r.delete("/projects/:projectId/invitations/:invitationId", async (req, res) => {
    res.locals.auditAction = "invitation.revoked";
    const projectId = await projectOf(deps.db, req.params.projectId);
    const found = await findInvitation(deps.db, projectId, invitationId(req));
    if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Invitation not found");
    audited(res, "invitation.revoked", null, {
      invitation_id: found.id,
      email: found.email,
      role: found.role,
    });
    await assertMayGrant(deps.db, actorOf(res), projectId, found.role);
    if (!(await revokeInvitation(deps.db, projectId, found.id)))
      throw new AppError(ErrorCode.CONFLICT, `This invitation was ${found.status} already`);
    res.json({ success: true });
  });

  // The invitee's page: whose invitation, to what, and whether it still works (public: no session needed).
  r.get("/invitations/:token", async (req, res) => {
    const actor = res.locals.actor as Actor | undefined;
    const ip = actor?.type === "token" ? null : clientAddress(req);
    const found = await lookUpInvitation(deps, hashInvitationToken(tokenOf(req)), ip);
    res.json({
      success: true,
      invitation: {
        project_id: found.projectId,
        project_name: found.projectName,
        email: found.email,
        role: found.role,
        invited_by: found.invitedBy ? { email: found.invitedBy.email, name: found.invitedBy.name } : null,
        expires_at: found.expiresAt.toISOString(),
        status: found.status,
      },
      // what the page asks for: a name and a password, or to sign in as the invited address first
      has_account: (await findUserByEmail(deps.db, found.email)) !== null,
      signed_in_as: actor?.type === "user" ? actor.user.email : null,
    });
  });

  r.post("/invitations/:token/accept", async (req, res) => {
    res.locals.auditAction = "invitation.accepted";
    const body = parseInput(acceptInvitationSchema, req.body ?? {});
    const actor = res.locals.actor as Actor | undefined;
    // acting on this browser's session (an existing user joins): the session's CSRF token, as every change
    if (actor?.type === "user" && !body.password) assertCsrf(req, actor.csrfToken);
    const out = await acceptInvitation(deps, {
      tokenHash: hashInvitationToken(tokenOf(req)),
      actor: actor?.type === "user" && !body.password ? actor : undefined,
      name: body.name,
      password: body.password,
      client: { ip: clientAddress(req), userAgent: req.header("user-agent") ?? null },
      byToken: actor?.type === "token",
    });
    const { invitation, user } = out;
    audited(res, "invitation.accepted", invitation.projectId, {
      invitation_id: invitation.id,
      email: invitation.email,
      role: invitation.role,
      new_user: out.kind === "new-user",
    });
    let csrfToken = actor?.type === "user" ? actor.csrfToken : null;
    if (out.kind === "new-user") {
      await setSessionCookie(deps, req, res, out.session);
      csrfToken = out.session.csrfToken;
      res.locals.actor = { type: "user", user, sessionId: "", csrfToken } satisfies Actor;
    }
    res.json({
      success: true,
      project_id: invitation.projectId,
      user: { id: user.id, email: user.email, name: user.name, platform_owner: user.platformOwner },
      csrf_token: csrfToken,
      memberships: (await membershipsOf(deps.db, user.id)).map((m) => ({
        project_id: m.projectId,
        project_name: m.projectName,
        role: m.role,
      })),
    });
  });

  return r;
}

function tokenOf(req: Request): string {
  // hashed whatever it is: a malformed token is an unknown one, and counts against the address as one
  return String(req.params.token).slice(0, 200);
}

function invitationId(req: Request): string {
  const id = String(req.params.invitationId);
  if (!isUuid(id)) throw new AppError(ErrorCode.VALIDATION, "invitationId must be a UUID");
  return id;
}

const view = (i: InvitationRow) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  invited_by: i.invitedBy ? { email: i.invitedBy.email, name: i.invitedBy.name } : null,
  created_at: i.createdAt.toISOString(),
  expires_at: i.expiresAt.toISOString(),
  status: i.status,
});

const detailOf = (s: InvitationSent) => ({
  invitation_id: s.invitation.id,
  email: s.invitation.email,
  role: s.invitation.role,
  email_sent: s.email.sent,
});

function sentBody(s: InvitationSent) {
  return {
    success: true,
    invitation: view(s.invitation),
    email_sent: s.email.sent,
    ...(s.email.sent
      ? { email_id: s.email.emailId, activity_id: s.email.activityId }
      : { email_problem: s.email.reason, invite_url: s.url }),
  };
}
