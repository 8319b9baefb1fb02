import { Exchanges, makeEnvelope } from "@emailsvc/contracts";
import { clientWebhookExistsSql, type Db } from "@emailsvc/db";

/** One open-pixel or click hit, as answered; `at` is when it arrived. */
export interface TrackingHit {
  activityId: string;
  kind: "open" | "click";
  url?: string;
  at: Date;
}

/**
 * A batch of hits as ONE statement (one round trip, atomic like a transaction). Under load the pixel arrives
 * thousands of times a second; one statement per hit made PostgreSQL and the pg client the bottleneck.
 *   h    the hits, in arrival order;
 *   a    their activities (unknown ids: those hits record nothing);
 *   k    the event records: each hit's own, and for the batch's first hit on an email with no recorded open, if
 *        it is a click, an `open` before it (the image may have been blocked). Materialised once, so the
 *        generated event ids are the same for the events and their outbox rows;
 *   ev   every hit is an event record;
 *   g/upd `opened_first_at` / `clicked_first_at` and the forward-only status, written only while still NULL:
 *        the condition is re-checked on the latest row version, so of many concurrent first hits exactly one
 *        writes, and repeat hits touch no activity row;
 *   ob   the client events (`email.opened` / `email.clicked`) of projects with a webhook URL for the send's mode:
 *        envelopes built in TypeScript (makeEnvelope's shape), the statement fills in project, mode and event
 *        record id, which only it knows.
 */
const HITS_SQL = `
WITH h AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::jsonb[], $5::jsonb[], $6::jsonb[])
    WITH ORDINALITY AS h(activity_id, kind, at, details, env_open, env_click, ord)
), a AS (
  SELECT id, project_id, is_test, opened_first_at FROM activities WHERE id = ANY($1::uuid[])
), k AS MATERIALIZED (
  SELECT gen_random_uuid() AS ev_id, h.activity_id, x.kind, h.at, h.ord, x.sub, a.project_id, a.is_test,
         CASE WHEN x.kind = 'click' THEN h.details END AS details,
         CASE WHEN x.kind = 'click' THEN h.env_click ELSE h.env_open END AS env
    FROM h
    JOIN a ON a.id = h.activity_id
    CROSS JOIN LATERAL unnest(
      CASE WHEN h.kind = 'click' AND a.opened_first_at IS NULL
                AND h.ord = (SELECT min(h2.ord) FROM h h2 WHERE h2.activity_id = h.activity_id)
           THEN ARRAY['open', 'click'] ELSE ARRAY[h.kind] END) WITH ORDINALITY AS x(kind, sub)
), ev AS (
  INSERT INTO email_events (id, project_id, activity_id, type, is_test, occurred_at, payload)
  SELECT ev_id, project_id, activity_id, kind, is_test, at, details FROM k ORDER BY ord, sub
), g AS (
  SELECT activity_id, min(at) AS first_at, min(at) FILTER (WHERE kind = 'click') AS first_click
    FROM h WHERE activity_id IN (SELECT id FROM a) GROUP BY activity_id
), upd AS (
  UPDATE activities t SET
    opened_first_at = COALESCE(t.opened_first_at, g.first_at),
    clicked_first_at = COALESCE(t.clicked_first_at, g.first_click),
    status = CASE
      WHEN g.first_click IS NOT NULL AND t.clicked_first_at IS NULL AND t.status IN ('sent', 'delivered', 'opened') THEN 'clicked'
      WHEN t.opened_first_at IS NULL AND t.status IN ('sent', 'delivered') THEN 'opened'
      ELSE t.status END,
    updated_at = now()
  FROM g
  WHERE t.id = g.activity_id AND (t.opened_first_at IS NULL OR (g.first_click IS NOT NULL AND t.clicked_first_at IS NULL))
), ob AS (
  INSERT INTO outbox_messages (id, exchange, routing_key, payload)
  SELECT (env ->> 'id')::uuid, $7, env ->> 'type',
         jsonb_set(env || jsonb_build_object('projectId', project_id), '{payload}',
                   (env -> 'payload') || jsonb_build_object('projectId', project_id, 'isTest', is_test,
                                                            'eventRecordId', ev_id))
    FROM k WHERE project_id IS NOT NULL AND ${clientWebhookExistsSql("k.project_id", "k.is_test")}
  RETURNING 1
)
SELECT count(*)::int AS events FROM ob`;

function envelope(type: "email.opened" | "email.clicked", hit: TrackingHit): string {
  // projectId, isTest and eventRecordId are placeholders the statement overwrites.
  return JSON.stringify(
    makeEnvelope(
      type,
      {
        activityId: hit.activityId,
        projectId: "",
        isTest: false,
        occurredAt: hit.at.toISOString(),
        eventRecordId: "",
        ...(type === "email.clicked" && hit.url ? { details: { url: hit.url } } : {}),
      },
      { projectId: null, occurredAt: hit.at },
    ),
  );
}

/**
 * Records hits: one event record each, first-hit timestamps and status, and the client events. A click on an
 * email with no recorded open also counts as its first open. Resolves with the number of client events queued
 * in the outbox (the caller kicks the relay when there are any).
 */
export async function recordTrackingHits(db: Db, hits: readonly TrackingHit[]): Promise<number> {
  if (!hits.length) return 0;
  const res = await db.pool.query<{ events: number }>(HITS_SQL, [
    hits.map((h) => h.activityId),
    hits.map((h) => h.kind),
    hits.map((h) => h.at),
    hits.map((h) => (h.kind === "click" && h.url ? JSON.stringify({ url: h.url }) : null)),
    hits.map((h) => envelope("email.opened", h)),
    hits.map((h) => (h.kind === "click" ? envelope("email.clicked", h) : null)),
    Exchanges.emailEvents,
  ]);
  return res.rows[0]?.events ?? 0;
}
