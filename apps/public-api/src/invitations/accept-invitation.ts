import { AppError, ErrorCode } from "@emailsvc/contracts";
import { withTransaction } from "@emailsvc/db";
import { findUserByEmail, insertUser, type UserRow } from "../accounts/accounts.repo";
import type { Actor } from "../accounts/admin-access";
import { hashPassword, passwordProblem } from "../accounts/password";
import { startSession } from "../accounts/sign-in";
import type { InvitationsDeps } from "./invitations-deps";
import { claimInvitation, findInvitationByToken, type InvitationRow, joinProject } from "./invitations.repo";

export const MSG_INVITATION_UNKNOWN = "This invitation link is not valid: ask for a new one";
export const MSG_TOO_MANY_INVITATION_TRIES = "Too many invalid invitation links; try again in a few minutes";

/** Why a known link no longer works, in the invitee's words. */
export function invitationGone(i: InvitationRow): AppError {
  const ask = i.invitedBy
    ? ` ask ${i.invitedBy.name ?? i.invitedBy.email} for a new one`
    : " ask for a new one";
  const why =
    i.status === "accepted"
      ? "This invitation was used already: sign in instead"
      : i.status === "revoked"
        ? `This invitation was withdrawn:${ask}`
        : `This invitation expired:${ask}`;
  return new AppError(ErrorCode.CONFLICT, why, { extra: { invitation_status: i.status } });
}

const COUNT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/**
 * The invitation a link names, whatever its state, behind the sign-in throttle's budget per address: an unknown
 * token counts as a failed sign-in would, and past the budget every lookup from that address waits (429). 256
 * random bits are not guessed anyway; the throttle keeps a scanner from trying.
 */
export async function lookUpInvitation(
  deps: InvitationsDeps,
  tokenHash: string,
  /** the caller's address; null for the admin token, which guesses nothing (it may do anything already) */
  ip: string | null,
): Promise<InvitationRow> {
  const key = ip === null ? null : `invite:addr:${ip}`;
  const tries = key ? await deps.redis.get(key).catch(() => null) : null;
  if (Number(tries ?? 0) >= deps.signIn.perAddress)
    throw new AppError(ErrorCode.RATE_LIMITED, MSG_TOO_MANY_INVITATION_TRIES);
  const found = await findInvitationByToken(deps.db, tokenHash);
  if (!found) {
    if (key) await deps.redis.eval(COUNT, 1, key, deps.signIn.windowMs).catch(() => undefined);
    throw new AppError(ErrorCode.NOT_FOUND, MSG_INVITATION_UNKNOWN);
  }
  return found;
}

export type AcceptOutcome =
  | {
      kind: "new-user";
      invitation: InvitationRow;
      user: UserRow;
      session: Awaited<ReturnType<typeof startSession>>;
    }
  | { kind: "joined"; invitation: InvitationRow; user: UserRow };

/**
 * Accepts an invitation, once. Someone without an account sets a name and a password: the user, the membership and
 * the invitation's acceptance are one transaction, then a session starts. Someone with an account joins while
 * signed in as that address (the caller checked the session's CSRF token); signed out, they are asked to sign in.
 */
export async function acceptInvitation(
  deps: InvitationsDeps,
  input: {
    tokenHash: string;
    actor: Actor | undefined;
    name: string | undefined;
    password: string | undefined;
    client: { ip: string; userAgent: string | null };
    /** the admin token's call: not throttled */
    byToken: boolean;
  },
): Promise<AcceptOutcome> {
  const invitation = await lookUpInvitation(deps, input.tokenHash, input.byToken ? null : input.client.ip);
  if (invitation.status !== "pending") throw invitationGone(invitation);
  const existing = await findUserByEmail(deps.db, invitation.email);
  const signedIn = input.actor?.type === "user" ? input.actor.user : null;

  if (existing) {
    if (!signedIn)
      throw new AppError(
        ErrorCode.CONFLICT,
        `You have an account: sign in as ${invitation.email} to accept`,
        {
          extra: { sign_in_first: true },
        },
      );
    if (signedIn.id !== existing.id)
      throw new AppError(
        ErrorCode.FORBIDDEN,
        `This invitation is for ${invitation.email}; you are signed in as ${signedIn.email}`,
      );
    await withTransaction(deps.db, async (tx) => {
      const claimed = await claimInvitation(tx, input.tokenHash);
      if (!claimed) throw invitationGone({ ...invitation, status: "accepted" });
      await joinProject(tx, claimed.projectId, existing.id, claimed.role);
    });
    return { kind: "joined", invitation, user: existing };
  }

  const name = input.name?.trim();
  if (!name) throw new AppError(ErrorCode.VALIDATION, "name is required");
  const problem = passwordProblem(input.password ?? "");
  if (problem) throw new AppError(ErrorCode.VALIDATION, problem);
  const passwordHash = await hashPassword(input.password!);
  const user = await withTransaction(deps.db, async (tx) => {
    const claimed = await claimInvitation(tx, input.tokenHash);
    if (!claimed) throw invitationGone({ ...invitation, status: "accepted" });
    const created = await insertUser(tx, { email: claimed.email, name, passwordHash, platformOwner: false });
    // the address signed up between the page and the accept: they sign in instead (nothing is written)
    if (!created)
      throw new AppError(ErrorCode.CONFLICT, `You have an account: sign in as ${claimed.email} to accept`, {
        extra: { sign_in_first: true },
      });
    await joinProject(tx, claimed.projectId, created.id, claimed.role);
    return created;
  });
  const session = await startSession({ db: deps.db, config: deps.signIn }, user, input.client);
  return { kind: "new-user", invitation, user, session };
}
