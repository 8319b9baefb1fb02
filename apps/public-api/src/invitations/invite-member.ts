import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { findUserByEmail, roleIn, type Role } from "../accounts/accounts.repo";
import type { Actor } from "../accounts/admin-access";
import { assertMayGrant } from "../accounts/may-grant";
import { invitationUrl, newInvitationToken } from "./invitation-token";
import type { InvitationsDeps } from "./invitations-deps";
import { findInvitation, insertInvitation, type InvitationRow, renewInvitation } from "./invitations.repo";
import { type InvitationEmailOutcome, sendInvitationEmail } from "./send-invitation-email";

export interface InvitationSent {
  invitation: InvitationRow;
  email: InvitationEmailOutcome;
  /** the link, only when no email carried it: the inviter passes it on (a link emailed is the invitee's alone) */
  url: string | null;
}

const inviterOf = (actor: Actor) =>
  actor.type === "user" ? { id: actor.user.id, email: actor.user.email, name: actor.user.name } : null;

/**
 * Invites an address to the project with a role (admins; an owner only by an owner): a row with the hash of a new
 * token that works for DASHBOARD_INVITE_TTL_HOURS, then the email. A member already, or an address with a pending
 * invitation, is a 409 (resend or revoke that one).
 */
export async function inviteMember(
  deps: InvitationsDeps,
  input: { projectId: ProjectId; email: string; role: Role; actor: Actor; linkBase: string },
): Promise<InvitationSent> {
  await assertMayGrant(deps.db, input.actor, input.projectId, input.role);
  const email = input.email.trim().toLowerCase();
  const user = await findUserByEmail(deps.db, email);
  if (user && (await roleIn(deps.db, input.projectId, user.id)))
    throw new AppError(ErrorCode.CONFLICT, `${email} is a member of this project already`);
  const { token, hash } = newInvitationToken();
  const invitation = await insertInvitation(deps.db, input.projectId, {
    email,
    role: input.role,
    tokenHash: hash,
    invitedBy: inviterOf(input.actor)?.id ?? null,
    expiresAt: expiry(deps),
  });
  if (!invitation)
    throw new AppError(ErrorCode.CONFLICT, `${email} has a pending invitation already: resend or revoke it`);
  return deliver(deps, invitation, token, input.actor, input.linkBase);
}

/**
 * Sends a pending (or expired) invitation again with a new token and a new expiry: the old link stops working at
 * once. Owner invitations only by an owner.
 */
export async function resendInvitation(
  deps: InvitationsDeps,
  input: { projectId: ProjectId; id: string; actor: Actor; linkBase: string },
): Promise<InvitationSent> {
  const found = await findInvitation(deps.db, input.projectId, input.id);
  if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Invitation not found");
  await assertMayGrant(deps.db, input.actor, input.projectId, found.role);
  const { token, hash } = newInvitationToken();
  if (!(await renewInvitation(deps.db, input.projectId, input.id, hash, expiry(deps))))
    throw new AppError(ErrorCode.CONFLICT, `This invitation was ${found.status} already`);
  const invitation = (await findInvitation(deps.db, input.projectId, input.id))!;
  return deliver(deps, invitation, token, input.actor, input.linkBase);
}

const expiry = (deps: InvitationsDeps) => new Date(Date.now() + deps.config.ttlHours * 3_600_000);

async function deliver(
  deps: InvitationsDeps,
  invitation: InvitationRow,
  token: string,
  actor: Actor,
  linkBase: string,
): Promise<InvitationSent> {
  const url = invitationUrl(linkBase, token);
  const email = await sendInvitationEmail(deps, invitation.email, {
    projectName: invitation.projectName,
    role: invitation.role,
    inviter: inviterOf(actor),
    url,
    expiresAt: invitation.expiresAt,
  });
  if (!email.sent)
    deps.logger.warn(
      { invitationId: invitation.id, reason: email.reason },
      "invitation not emailed: the inviter was given the link",
    );
  return { invitation, email, url: email.sent ? null : url };
}
