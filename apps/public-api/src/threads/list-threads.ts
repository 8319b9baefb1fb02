import type { ListThreadsQuery, ProjectId } from "@emailsvc/contracts";
import { type Db, SqlParams, THREAD_COLUMNS, type ThreadRow } from "@emailsvc/db";
import { listPage, pagination, type Total } from "../listing/pagination";

export function threadView(r: ThreadRow) {
  return {
    id: r.id,
    activity_id: r.activity_id,
    email_id: r.email_message_id,
    campaign_id: r.campaign_id,
    outbound_message_id: r.outbound_message_id,
    email_type: r.email_type,
    is_test: r.is_test,
    subject: r.subject,
    participants: r.participants,
    message_count: r.message_count,
    last_message_at: r.last_message_at.toISOString(),
    created_at: r.created_at.toISOString(),
  };
}

/** GET /v1/threads: the key's project only, newest activity first (index project_id, last_message_at, id). */
export async function listThreads(
  db: Db,
  projectId: ProjectId,
  q: ListThreadsQuery,
  opts: { testOnly?: boolean } = {},
): Promise<{ body: unknown; total: Total }> {
  const params = new SqlParams([projectId]);
  const where = ["project_id = $1"];
  if (opts.testOnly) where.push("is_test");
  if (q.activity_id) where.push(`activity_id = ${params.add(q.activity_id)}::uuid`);
  if (q.campaign_id) where.push(`campaign_id = ${params.add(q.campaign_id)}::uuid`);
  if (q.since) where.push(`last_message_at >= ${params.add(q.since.toISOString())}::timestamptz`);
  const fromWhere = `inbound_threads WHERE ${where.join(" AND ")}`;
  const { rows, total } = await listPage<ThreadRow>(
    db,
    fromWhere,
    params.values,
    q,
    (limit, offset) => `SELECT ${THREAD_COLUMNS} FROM ${fromWhere}
            ORDER BY last_message_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
  );
  return {
    body: {
      success: true,
      data: rows.map(threadView),
      pagination: pagination(q.page, q.per_page, total.total),
    },
    total,
  };
}
