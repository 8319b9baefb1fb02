import type { ProjectId } from "@emailsvc/contracts";
import { connOf, type DbOrClient } from "../create-db";

/**
 * The sending domain as the project registered it: whether it is verified and DKIM-signed (bulk mail must be signed
 * by its own domain: the large mailbox providers' bulk-sender rules). `registered` false: the sender is verified as
 * a single address only, and SES signs for its own domain, not the sender's.
 */
export async function sendingDomainState(
  q: DbOrClient,
  projectId: ProjectId,
  domain: string,
): Promise<{ registered: boolean; verified: boolean; dkimVerified: boolean }> {
  const { rows } = await connOf(q).query<{ status: string; dkim_verified: boolean }>(
    `SELECT status, dkim_verified FROM domain_identities
      WHERE project_id = $1 AND domain = $2 AND deleted_at IS NULL`,
    [projectId, domain],
  );
  const d = rows[0];
  return { registered: !!d, verified: d?.status === "verified", dkimVerified: !!d?.dkim_verified };
}
