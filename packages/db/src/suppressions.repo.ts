import type { ProjectId } from "@emailsvc/contracts";
import { connOf, type DbOrClient } from "./create-db";

// The suppression list as the dashboard reads and edits it (issue 45). The sends' own check reads the same rows
// inside their statement (sender-verified-sql.ts); bounces, complaints and unsubscribes add theirs elsewhere
// (provider-outcomes.repo.ts, unsubscribe.repo.ts).

/** Why an address is suppressed: the provider's hard bounce or complaint, an unsubscribe, or an operator's hand. */
export const SUPPRESSION_REASONS = ["bounce", "complaint", "unsubscribed", "manual"] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface SuppressionRow {
  id: string;
  email: string;
  reason: string;
  source_activity_id: string | null;
  created_at: Date;
}

export interface SuppressionListFilter {
  /** the start of the address, compared lower-case */
  prefix?: string;
  reason?: string;
  /** keyset: the previous page's last address */
  after?: string;
  limit: number;
}

const COLUMNS = "id, email, reason, source_activity_id, created_at";

/** LIKE's wildcards and its escape taken literally: the prefix an operator typed, nothing more. */
const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of a project's suppressions in address order, keyset-paged on the address: the (project_id, email)
 * unique index serves the order, the page and a prefix search alike (the database collates in C, so LIKE 'x%' is an
 * index range), whatever the list's size. Never OFFSET.
 */
export async function listSuppressions(
  db: DbOrClient,
  projectId: ProjectId,
  f: SuppressionListFilter,
): Promise<SuppressionRow[]> {
  const { rows } = await connOf(db).query<SuppressionRow>(
    `SELECT ${COLUMNS} FROM suppressions
      WHERE project_id = $1
        AND ($2::text IS NULL OR email LIKE $2)
        AND ($3::text IS NULL OR reason = $3)
        AND ($4::text IS NULL OR email > $4)
      ORDER BY email
      LIMIT $5`,
    [
      projectId,
      f.prefix ? likePrefix(f.prefix.toLowerCase()) : null,
      f.reason ?? null,
      f.after ?? null,
      f.limit,
    ],
  );
  return rows;
}

/**
 * Suppresses an address by hand. `created` false: it was suppressed already, and `row` is that suppression as it
 * stands (its reason and date are kept: the first cause is the one worth knowing).
 */
export async function addSuppression(
  db: DbOrClient,
  projectId: ProjectId,
  email: string,
  reason: SuppressionReason,
): Promise<{ created: boolean; row: SuppressionRow }> {
  const conn = connOf(db);
  const key = email.trim().toLowerCase();
  const inserted = await conn.query<SuppressionRow>(
    `INSERT INTO suppressions (id, project_id, email, reason) VALUES (gen_random_uuid(), $1, $2, $3)
     ON CONFLICT (project_id, email) DO NOTHING RETURNING ${COLUMNS}`,
    [projectId, key, reason],
  );
  if (inserted.rows[0]) return { created: true, row: inserted.rows[0] };
  const { rows } = await conn.query<SuppressionRow>(
    `SELECT ${COLUMNS} FROM suppressions WHERE project_id = $1 AND email = $2`,
    [projectId, key],
  );
  return { created: false, row: rows[0]! };
}

/** Lifts a suppression, named by its id or its address; the removed row, or undefined when the project has none. */
export async function removeSuppression(
  db: DbOrClient,
  projectId: ProjectId,
  by: { id: string } | { email: string },
): Promise<SuppressionRow | undefined> {
  const { rows } = await connOf(db).query<SuppressionRow>(
    "id" in by
      ? `DELETE FROM suppressions WHERE project_id = $1 AND id = $2::uuid RETURNING ${COLUMNS}`
      : `DELETE FROM suppressions WHERE project_id = $1 AND email = $2 RETURNING ${COLUMNS}`,
    [projectId, "id" in by ? by.id : by.email.trim().toLowerCase()],
  );
  return rows[0];
}
