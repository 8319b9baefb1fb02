import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";

/** Of these normalised emails, the ones the project has a lead for (a preview says create or update). */
export async function knownLeadEmails(db: Db, projectId: ProjectId, norms: string[]): Promise<Set<string>> {
  if (!norms.length) return new Set();
  const { rows } = await db.pool.query<{ norm: string }>(
    "SELECT email_normalized AS norm FROM leads WHERE project_id = $1 AND email_normalized = ANY($2::text[])",
    [projectId, norms],
  );
  return new Set(rows.map((r) => r.norm));
}
