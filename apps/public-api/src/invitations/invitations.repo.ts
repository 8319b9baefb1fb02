import type { ProjectId } from "@emailsvc/contracts";
import { type Db, type DbOrClient, connOf, timeOrderedUuid } from "@emailsvc/db";
import type { Role } from "../accounts/accounts.repo";

// Invitations to a project (issue 45). Only public-api reads or writes them, so their SQL lives here. A row holds
// the SHA-256 of its link's token, never the token: a database dump invites no one.

export type InvitationStatus = "pending" | "accepted" | "revoked" | "expired";

export interface InvitationRow {
  id: string;
  projectId: ProjectId;
  projectName: string;
  email: string;
  role: Role;
  invitedBy: { id: string; email: string; name: string | null } | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  status: InvitationStatus;
}

type InvitationSql = {
  id: string;
  project_id: ProjectId;
  project_name: string;
  email: string;
  role: Role;
  invited_by: string | null;
  inviter_email: string | null;
  inviter_name: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  status: InvitationStatus;
};

const SELECT = `SELECT i.id, i.project_id, p.name AS project_name, i.email, i.role, i.invited_by,
       u.email AS inviter_email, u.name AS inviter_name, i.created_at, i.expires_at, i.accepted_at, i.revoked_at,
       CASE WHEN i.accepted_at IS NOT NULL THEN 'accepted' WHEN i.revoked_at IS NOT NULL THEN 'revoked'
            WHEN i.expires_at <= now() THEN 'expired' ELSE 'pending' END AS status
  FROM invitations i JOIN projects p ON p.id = i.project_id LEFT JOIN users u ON u.id = i.invited_by`;
const PENDING = "i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()";

const toInvitation = (r: InvitationSql): InvitationRow => ({
  id: r.id,
  projectId: r.project_id,
  projectName: r.project_name,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by ? { id: r.invited_by, email: r.inviter_email ?? "", name: r.inviter_name } : null,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  acceptedAt: r.accepted_at,
  revokedAt: r.revoked_at,
  status: r.status,
});

/** A new invitation, or null when the address has a pending one in the project already. */
export async function insertInvitation(
  db: Db,
  projectId: ProjectId,
  i: { email: string; role: Role; tokenHash: string; invitedBy: string | null; expiresAt: Date },
): Promise<InvitationRow | null> {
  const id = timeOrderedUuid();
  // one pending invitation per address and project; the check and the insert are one statement
  const { rowCount } = await db.pool.query(
    `INSERT INTO invitations (id, project_id, email, role, token_hash, invited_by, expires_at)
     SELECT $1, $2, $3, $4, $5, $6, $7
      WHERE NOT EXISTS (SELECT 1 FROM invitations i WHERE i.project_id = $2 AND i.email = $3 AND ${PENDING})`,
    [id, projectId, i.email.trim().toLowerCase(), i.role, i.tokenHash, i.invitedBy, i.expiresAt],
  );
  return rowCount ? findInvitation(db, projectId, id) : null;
}

export async function findInvitation(
  db: Db,
  projectId: ProjectId,
  id: string,
): Promise<InvitationRow | null> {
  const { rows } = await db.pool.query<InvitationSql>(
    `${SELECT} WHERE i.project_id = $1 AND i.id = $2::uuid`,
    [projectId, id],
  );
  return rows[0] ? toInvitation(rows[0]) : null;
}

/** The invitation a link's token names, whatever its state (the accept page says expired or used). */
export async function findInvitationByToken(db: Db, tokenHash: string): Promise<InvitationRow | null> {
  const { rows } = await db.pool.query<InvitationSql>(`${SELECT} WHERE i.token_hash = $1`, [tokenHash]);
  return rows[0] ? toInvitation(rows[0]) : null;
}

/** The project's invitations still waiting for an answer, newest first. */
export async function listPendingInvitations(db: Db, projectId: ProjectId): Promise<InvitationRow[]> {
  const { rows } = await db.pool.query<InvitationSql>(
    `${SELECT} WHERE i.project_id = $1 AND ${PENDING} ORDER BY i.created_at DESC, i.id DESC LIMIT 500`,
    [projectId],
  );
  return rows.map(toInvitation);
}

/** Revokes a pending invitation; false when it was not pending (accepted, revoked or expired already). */
export async function revokeInvitation(db: Db, projectId: ProjectId, id: string): Promise<boolean> {
  const r = await db.pool.query(
    `UPDATE invitations i SET revoked_at = now() WHERE i.project_id = $1 AND i.id = $2::uuid AND ${PENDING}`,
    [projectId, id],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * A resend: a new token (the old link dies with its hash) and a new expiry, for an invitation neither accepted nor
 * revoked (an expired one may be sent again). False otherwise.
 */
export async function renewInvitation(
  db: Db,
  projectId: ProjectId,
  id: string,
  tokenHash: string,
  expiresAt: Date,
): Promise<boolean> {
  const r = await db.pool.query(
    `UPDATE invitations SET token_hash = $3, expires_at = $4
      WHERE project_id = $1 AND id = $2::uuid AND accepted_at IS NULL AND revoked_at IS NULL`,
    [projectId, id, tokenHash, expiresAt],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * Marks the invitation accepted, once: of two accepts of one link only one claims it. Run in the transaction that
 * makes the membership, so a failed accept leaves the link usable. Null when it is no longer pending.
 */
export async function claimInvitation(
  tx: DbOrClient,
  tokenHash: string,
): Promise<{ id: string; projectId: ProjectId; email: string; role: Role } | null> {
  const { rows } = await connOf(tx).query<{ id: string; project_id: ProjectId; email: string; role: Role }>(
    `UPDATE invitations i SET accepted_at = now() WHERE i.token_hash = $1 AND ${PENDING}
     RETURNING i.id, i.project_id, i.email, i.role`,
    [tokenHash],
  );
  const r = rows[0];
  return r ? { id: r.id, projectId: r.project_id, email: r.email, role: r.role } : null;
}

/**
 * The project whose verified sender (an address, or its verified domain) `email` is: where invitations are sent
 * from when DASHBOARD_INVITE_PROJECT_ID is not given. Domain-service's ownership rule lets one project hold it.
 */
export async function projectOfVerifiedSender(db: Db, email: string): Promise<ProjectId | null> {
  const { rows } = await db.pool.query<{ project_id: ProjectId }>(
    `SELECT project_id FROM sender_profiles WHERE sender_email = $1 AND email_verified AND active
     UNION ALL
     SELECT project_id FROM domain_identities
      WHERE domain = split_part($1, '@', 2) AND status = 'verified' AND deleted_at IS NULL
     LIMIT 1`,
    [email.toLowerCase()],
  );
  return rows[0]?.project_id ?? null;
}

/** The invitee's membership; a member already keeps the role they have (an admin changes roles on the Team page). */
export async function joinProject(
  tx: DbOrClient,
  projectId: ProjectId,
  userId: string,
  role: Role,
): Promise<void> {
  await connOf(tx).query(
    `INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, user_id) DO NOTHING`,
    [projectId, userId, role],
  );
}
