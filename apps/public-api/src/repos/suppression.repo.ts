import type { Db } from "@emailsvc/db";

/** Suppressed addresses among `emails` (lowercased) of one project → reason (`bounce`, `unsubscribed`, …). */
export async function findSuppressed(
  db: Pick<Db, "pool">,
  projectId: string,
  emails: readonly string[],
): Promise<Map<string, string>> {
  if (emails.length === 0) return new Map();
  const { rows } = await db.pool.query<{ email: string; reason: string }>(
    "SELECT email, reason FROM suppressions WHERE project_id = $1 AND email = ANY($2::text[])",
    [projectId, [...new Set(emails.map((e) => e.toLowerCase()))]],
  );
  return new Map(rows.map((r) => [r.email, r.reason]));
}
