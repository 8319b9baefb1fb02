import type { ListEventsQuery, ProjectId } from "@emailsvc/contracts";
import { type Db, findLeadIdByEmail, SqlParams } from "@emailsvc/db";
import { listPage, pagination, type Total } from "../listing/pagination";

interface EventRow {
  id: string;
  email: string;
  name: string;
  properties: Record<string, unknown>;
  occurred_at: Date;
  lead_id: string;
  created_at: Date;
}

/** Spec 2 "Event record (custom events)". */
export function eventView(r: EventRow) {
  return {
    id: r.id,
    email: r.email,
    event: r.name,
    properties: r.properties,
    timestamp: r.occurred_at.toISOString(),
    recipient_id: r.lead_id,
    created_at: r.created_at.toISOString(),
  };
}

/**
 * GET /v1/events: newest `timestamp` first (ties by id), `since` and `until` both inclusive. Each filter shape has
 * its index, (project, time), (project, lead, time) or (project, name, time), all ending in id: the page's ids
 * come from an index-only scan (an OFFSET walks index entries, not rows), then only the page's rows are read.
 * An `email` with no lead in the project is an empty list.
 */
export async function listEvents(
  db: Db,
  projectId: ProjectId,
  q: ListEventsQuery,
): Promise<{ body: unknown; total: Total }> {
  const params = new SqlParams([projectId]);
  const where = ["project_id = $1"];
  if (q.email) {
    const leadId = await findLeadIdByEmail(db, projectId, q.email);
    if (!leadId) {
      const empty = { total: 0, exact: true };
      return {
        body: { success: true, data: [], pagination: pagination(q.page, q.per_page, 0) },
        total: empty,
      };
    }
    where.push(`lead_id = ${params.add(leadId)}::uuid`);
  }
  if (q.event) where.push(`name = ${params.add(q.event)}::text`);
  if (q.since) where.push(`occurred_at >= ${params.add(q.since.toISOString())}::timestamptz`);
  if (q.until) where.push(`occurred_at <= ${params.add(q.until.toISOString())}::timestamptz`);

  const fromWhere = `lead_events WHERE ${where.join(" AND ")}`;
  const { rows, total } = await listPage<EventRow>(
    db,
    fromWhere,
    params.values,
    q,
    (limit, offset) => `WITH page AS (
             SELECT id, occurred_at FROM ${fromWhere} ORDER BY occurred_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}
           )
           SELECT e.id, l.email, e.name, e.properties, e.occurred_at, e.lead_id, e.created_at
             FROM page JOIN lead_events e ON e.id = page.id JOIN leads l ON l.id = e.lead_id AND l.project_id = $1
            ORDER BY page.occurred_at DESC, page.id DESC`,
  );
  return {
    body: {
      success: true,
      data: rows.map(eventView),
      pagination: pagination(q.page, q.per_page, total.total),
    },
    total,
  };
}
