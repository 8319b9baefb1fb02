import type { ProjectId } from "@emailsvc/contracts";
import { withTransaction, type Db } from "@emailsvc/db";

/** A row of email_identities (single-address verification, spec 4.10). */
export interface EmailIdentityRow {
  id: string;
  sender_email: string;
  verification_status: string;
  sender_profile_id: string | null;
}

/** A row of sender_profiles, the fields these routes show. */
export interface SenderProfileRow {
  id: string;
  sender_name: string;
  sender_email: string;
  email_verified: boolean;
  domain_authenticated: boolean;
}

export type EmailVerificationStatus = "verified" | "failed" | "pending";

/**
 * Who holds the provider identity of `email`: this project, another one, or nobody. The provider's identity is
 * one per account, so this is the one question asked across projects (it reveals no other data).
 */
export async function emailOwnership(
  db: Db,
  projectId: ProjectId,
  email: string,
): Promise<"this-project" | "another-project" | "free"> {
  const owners = await db.pool.query<{ project_id: ProjectId }>(
    "SELECT project_id FROM email_identities WHERE sender_email = $1",
    [email],
  );
  if (owners.rows.some((o) => o.project_id === projectId)) return "this-project";
  return owners.rowCount ? "another-project" : "free";
}

/** The project's identity for `email` with its sender profile (which may be gone), or null. */
export async function findEmailIdentity(
  db: Db,
  projectId: ProjectId,
  email: string,
): Promise<{ identity: EmailIdentityRow; profile: SenderProfileRow | null } | null> {
  const r = await db.pool.query<EmailIdentityRow>(
    "SELECT * FROM email_identities WHERE project_id = $1 AND sender_email = $2",
    [projectId, email],
  );
  const identity = r.rows[0];
  if (!identity) return null;
  const p = await db.pool.query<SenderProfileRow>(
    "SELECT * FROM sender_profiles WHERE project_id = $1 AND sender_email = $2",
    [projectId, email],
  );
  return { identity, profile: p.rows[0] ?? null };
}

/**
 * Stores a new pending identity and its (new or reactivated) sender profile, in one transaction. Two requests
 * registering one address at once both pass `emailOwnership`: the transaction serializes them on the address
 * and checks again, so the second gets `another-project`, or `this-project` when the same project sent both.
 */
export async function insertEmailIdentity(
  db: Db,
  projectId: ProjectId,
  e: { email: string; senderName: string; externalKey: string | null },
): Promise<{ identity: EmailIdentityRow; profile: SenderProfileRow } | "another-project" | "this-project"> {
  return withTransaction(db.pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`email:${e.email}`]);
    const taken = await c.query<{ project_id: ProjectId }>(
      "SELECT project_id FROM email_identities WHERE sender_email = $1",
      [e.email],
    );
    if (taken.rows.some((o) => o.project_id === projectId)) return "this-project" as const;
    if (taken.rowCount) return "another-project" as const;
    const p = await c.query<SenderProfileRow>(
      `INSERT INTO sender_profiles (id, project_id, sender_name, sender_email, email_verified, external_key, active, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, false, $4, true, now())
       ON CONFLICT (project_id, sender_email) DO UPDATE SET sender_name = $2, active = true, updated_at = now() RETURNING *`,
      [projectId, e.senderName, e.email, e.externalKey],
    );
    const i = await c.query<EmailIdentityRow>(
      `INSERT INTO email_identities (id, project_id, sender_email, verification_status, sender_profile_id, updated_at)
       VALUES (gen_random_uuid(), $1, $2, 'pending', $3, now()) RETURNING *`,
      [projectId, e.email, p.rows[0]!.id],
    );
    return { identity: i.rows[0]!, profile: p.rows[0]! };
  });
}

/** What the provider says of the address, stored on its identity and its sender profile together. */
export async function storeEmailStatus(
  db: Db,
  projectId: ProjectId,
  email: string,
  status: EmailVerificationStatus,
): Promise<SenderProfileRow | null> {
  return withTransaction(db.pool, async (c) => {
    await c.query(
      "UPDATE email_identities SET verification_status = $3, updated_at = now() WHERE project_id = $1 AND sender_email = $2",
      [projectId, email, status],
    );
    const p = await c.query<SenderProfileRow>(
      "UPDATE sender_profiles SET email_verified = $3, updated_at = now() WHERE project_id = $1 AND sender_email = $2 RETURNING *",
      [projectId, email, status === "verified"],
    );
    return p.rows[0] ?? null;
  });
}

/** The identity waits for its (new) verification mail again; its profile is left as it is. */
export async function markEmailPending(db: Db, projectId: ProjectId, email: string): Promise<void> {
  await db.pool.query(
    "UPDATE email_identities SET verification_status = 'pending', updated_at = now() WHERE project_id = $1 AND sender_email = $2",
    [projectId, email],
  );
}

/**
 * Removes the identity and its sender profile, in one transaction. A profile that also belongs to a domain is
 * kept, with only its single-address verification withdrawn.
 */
export async function deleteEmailIdentityRows(db: Db, projectId: ProjectId, email: string): Promise<void> {
  await withTransaction(db.pool, async (c) => {
    await c.query("DELETE FROM email_identities WHERE project_id = $1 AND sender_email = $2", [
      projectId,
      email,
    ]);
    await c.query(
      "DELETE FROM sender_profiles WHERE project_id = $1 AND sender_email = $2 AND domain_id IS NULL",
      [projectId, email],
    );
    await c.query(
      "UPDATE sender_profiles SET email_verified = false, updated_at = now() WHERE project_id = $1 AND sender_email = $2",
      [projectId, email],
    );
  });
}
