import { isUuid, normalizeLeadEmail, type ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";

/** Where a lead came from (`leads.source`), and who last set its subscription (`subscription_source`). */
export type LeadSource = "api" | "event" | "import" | "shop";

/** A lead as the database holds it. */
export interface LeadRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  attributes: Record<string, unknown>;
  tags: string[] | null;
  subscription: string;
  subscription_changed_at: Date | null;
  subscription_source: string | null;
  source: string;
  created_at: Date;
  updated_at: Date;
}

export const LEAD_COLUMNS =
  "id, email, first_name, last_name, phone, attributes, tags, subscription, subscription_changed_at, subscription_source, source, created_at, updated_at";

/**
 * The lead `ref` names in the project: its UUID, or its email (anything with an `@`, matched normalised).
 * Undefined when the project has no such lead: another project's lead is never found.
 */
export async function findLeadRow(db: Db, projectId: ProjectId, ref: string): Promise<LeadRow | undefined> {
  if (ref.includes("@"))
    return (
      await db.pool.query<LeadRow>(
        `SELECT ${LEAD_COLUMNS} FROM leads WHERE project_id = $1 AND email_normalized = $2`,
        [projectId, normalizeLeadEmail(ref)],
      )
    ).rows[0];
  if (!isUuid(ref)) return undefined;
  return (
    await db.pool.query<LeadRow>(`SELECT ${LEAD_COLUMNS} FROM leads WHERE project_id = $1 AND id = $2`, [
      projectId,
      ref,
    ])
  ).rows[0];
}
