import type { ProjectId } from "@emailsvc/contracts";
import type { Pool, PoolClient } from "pg";

type Queryable = Pick<Pool | PoolClient, "query">;

/**
 * The sending domain as the project registered it: whether it is verified and DKIM-signed (bulk mail must be signed
 * by its own domain: the large mailbox providers' bulk-sender rules). `registered` false: the sender is verified as
 * a single address only, and SES signs for its own domain, not the sender's.
 */
export async function sendingDomainState(
  q: Queryable,
  projectId: ProjectId,
  domain: string,
): Promise<{ registered: boolean; verified: boolean; dkimVerified: boolean }> {
  const { rows } = await q.query<{ status: string; dkim_verified: boolean }>(
    `SELECT status, dkim_verified FROM domain_identities
      WHERE project_id = $1 AND domain = $2 AND deleted_at IS NULL`,
    [projectId, domain],
  );
  const d = rows[0];
  return { registered: !!d, verified: d?.status === "verified", dkimVerified: !!d?.dkim_verified };
}

/** The project's postal address (the bulk footer's), or null when it has none. */
export async function projectPostalAddress(q: Queryable, projectId: ProjectId): Promise<string | null> {
  const { rows } = await q.query<{ postal_address: string | null }>(
    `SELECT postal_address FROM projects WHERE id = $1`,
    [projectId],
  );
  return rows[0]?.postal_address?.trim() || null;
}
