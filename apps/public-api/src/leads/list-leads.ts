import { type ListLeadsQuery, normalizeLeadEmail, type ProjectId } from "@emailsvc/contracts";
import { type Db, LEAD_COLUMNS, type LeadRow, membershipSql, SqlParams } from "@emailsvc/db";
import { listPage, pagination, type Total } from "../listing/pagination";
import { findSegment } from "../segments/segment-row";
import { leadView } from "./lead-row";

/** GET /v1/leads: newest first, filtered by email, tag, segment, subscription, attribute equality, creation time. */
export async function listLeads(
  db: Db,
  projectId: ProjectId,
  q: ListLeadsQuery,
  attributes: Record<string, string>,
): Promise<{ body: unknown; total: Total }> {
  const params = new SqlParams([projectId]);
  const where = ["l.project_id = $1"];
  if (q.email) where.push(`l.email_normalized = ${params.add(normalizeLeadEmail(q.email))}`);
  // `tags @>` as the GIN index on tags reads it (a COALESCE around the column hid the index: bench/dashboard's tag
  // page of 200,000 leads cost 140 ms of PostgreSQL CPU); a NULL tags never contains the tag either way
  if (q.tag) where.push(`l.tags @> ARRAY[${params.add(q.tag)}::text]`);
  if (q.subscription) where.push(`l.subscription = ${params.add(q.subscription)}`);
  if (q.created_since) where.push(`l.created_at >= ${params.add(q.created_since)}`);
  if (q.created_until) where.push(`l.created_at <= ${params.add(q.created_until)}`);
  for (const [k, v] of Object.entries(attributes))
    where.push(`l.attributes ->> ${params.add(k)}::text = ${params.add(v)}::text`);
  if (q.segment) where.push(membershipSql(await findSegment(db, projectId, q.segment), params));

  const fromWhere = `leads l WHERE ${where.join(" AND ")}`;
  const { rows, total } = await listPage<LeadRow>(
    db,
    fromWhere,
    params.values,
    q,
    (limit, offset) =>
      `SELECT ${LEAD_COLUMNS.split(", ")
        .map((c) => `l.${c}`)
        .join(", ")} FROM ${fromWhere} ORDER BY l.created_at DESC, l.id DESC LIMIT ${limit} OFFSET ${offset}`,
  );
  return {
    body: {
      success: true,
      data: rows.map(leadView),
      pagination: pagination(q.page, q.per_page, total.total),
    },
    total,
  };
}
