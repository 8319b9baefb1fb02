import { Exchanges, makeEnvelope, projectIdOf, RoutingKeys } from "@emailsvc/contracts";
import { ACTIVITY_WENT_OUT, movableTo, statusList } from "./activity-status";
import type { Db } from "./create-db";
import { clientWebhookExistsSql, OUTBOX_INSERT } from "./outbox";
import { timeOrderedUuid } from "./time-ordered-uuid";

// Open and click hits on the activities aggregate (spec 4.9's opened / clicked), written by notification-ingest's
// tracking routes through its group writer.

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
 *   h    the hits, in arrival order (times as epoch milliseconds: a number array costs the client far less to
 *        send than Date values), each with its event record's id: time-ordered (UUID v7), so the records append
 *        to the right edge of email_events' primary key (random ids cost PostgreSQL 40–70% more per row);
 *   a    their activities once sent: a hit on an unknown id, or on an email the provider has not accepted yet
 *        (scheduled, queued, sending) or never will (cancelled, failed), cannot come from its recipient and
 *        records nothing (a pixel URL fetched before the send set opened_first_at, and the email then never
 *        became `opened`);
 *   k    the event records: each hit's own, and for the batch's first hit on an email with no recorded open, if
 *        it is a click, an `open` before it (the image may have been blocked), as a second, rarely non-empty
 *        branch of a UNION ALL (a lateral unnest of a one- or two-element array per hit cost PostgreSQL more for
 *        the common case of plain opens). Materialised once, so the generated event ids are the same for the
 *        events and their outbox rows;
 *   ev   every hit is an event record;
 *   g/upd `opened_first_at` / `clicked_first_at` and the forward-only status, written only while still NULL:
 *        the condition is re-checked on the latest row version, so of many concurrent first hits exactly one
 *        writes, and repeat hits touch no activity row;
 *   ob   the client events (`email.opened` / `email.clicked`) of projects with a webhook URL for the send's mode:
 *        one envelope per event type is built in TypeScript for the whole batch (makeEnvelope's shape), and the
 *        statement fills in each event's own id, time, activity, project, mode, record id and URL.
 */
const HITS_SQL = `
WITH h AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::float8[], $4::text[], $8::uuid[])
    WITH ORDINALITY AS h(activity_id, kind, at_ms, url, ev_id, ord)
), a AS (
  SELECT id, project_id, is_test, opened_first_at FROM activities
   WHERE id = ANY($1::uuid[]) AND status IN ${statusList(ACTIVITY_WENT_OUT)}
), k AS MATERIALIZED (
  SELECT h.ev_id, h.activity_id, h.kind, to_timestamp(h.at_ms / 1000) AS at, h.ord, 1 AS sub,
         a.project_id, a.is_test, CASE WHEN h.kind = 'click' THEN h.url END AS url
    FROM h JOIN a ON a.id = h.activity_id
  UNION ALL
  SELECT gen_random_uuid(), h.activity_id, 'open', to_timestamp(h.at_ms / 1000), h.ord, 0, a.project_id, a.is_test, NULL
    FROM h JOIN a ON a.id = h.activity_id
   WHERE h.kind = 'click' AND a.opened_first_at IS NULL
     AND h.ord = (SELECT min(h2.ord) FROM h h2 WHERE h2.activity_id = h.activity_id)
), ev AS (
  INSERT INTO email_events (id, project_id, activity_id, type, is_test, occurred_at, payload)
  SELECT ev_id, project_id, activity_id, kind, is_test, at,
         CASE WHEN url IS NOT NULL THEN jsonb_build_object('url', url) END
    FROM k ORDER BY ord, sub
), g AS (
  SELECT activity_id, min(at) AS first_at, min(at) FILTER (WHERE kind = 'click') AS first_click
    FROM k GROUP BY activity_id
), upd AS (
  UPDATE activities t SET
    opened_first_at = COALESCE(t.opened_first_at, g.first_at),
    clicked_first_at = COALESCE(t.clicked_first_at, g.first_click),
    status = CASE
      WHEN g.first_click IS NOT NULL AND t.clicked_first_at IS NULL AND t.status IN ${movableTo("clicked")} THEN 'clicked'
      WHEN t.opened_first_at IS NULL AND t.status IN ${movableTo("opened")} THEN 'opened'
      ELSE t.status END,
    updated_at = now()
  FROM g
  WHERE t.id = g.activity_id AND (t.opened_first_at IS NULL OR (g.first_click IS NOT NULL AND t.clicked_first_at IS NULL))
), o AS (
  SELECT gen_random_uuid() AS id, k.*,
         to_char(k.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at_iso,
         CASE WHEN k.kind = 'click' THEN $6::jsonb ELSE $5::jsonb END AS tpl
    FROM k WHERE k.project_id IS NOT NULL AND ${clientWebhookExistsSql("k.project_id", "k.is_test")}
), ob AS (
  ${OUTBOX_INSERT}
  SELECT id, $7, tpl ->> 'type',
         tpl || jsonb_build_object(
           'id', id, 'correlationId', id, 'occurredAt', at_iso, 'projectId', project_id,
           'payload', (tpl -> 'payload') || jsonb_build_object(
             'activityId', activity_id, 'projectId', project_id, 'isTest', is_test, 'occurredAt', at_iso,
             'eventRecordId', ev_id)
             || CASE WHEN url IS NOT NULL THEN jsonb_build_object('details', jsonb_build_object('url', url))
                     ELSE '{}'::jsonb END)
    FROM o
  RETURNING 1
)
SELECT count(*)::int AS events FROM ob`;

/**
 * The envelope of one client event type: makeEnvelope's shape, with the fields every event has its own value
 * for (id, times, activity, project, mode, record id) left for the statement to fill in.
 */
function envelopeTemplate(type: typeof RoutingKeys.emailOpened | typeof RoutingKeys.emailClicked): string {
  return JSON.stringify(
    makeEnvelope(
      type,
      { activityId: "", projectId: projectIdOf(""), isTest: false, occurredAt: "", eventRecordId: "" },
      { projectId: null },
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
  const ids = new Array<string>(hits.length);
  const kinds = new Array<string>(hits.length);
  const ats = new Array<number>(hits.length);
  const urls = new Array<string | null>(hits.length);
  const eventIds = new Array<string>(hits.length);
  hits.forEach((h, i) => {
    eventIds[i] = timeOrderedUuid();
    ids[i] = h.activityId;
    kinds[i] = h.kind;
    ats[i] = h.at.getTime();
    urls[i] = h.kind === "click" && h.url ? h.url : null;
  });
  // Named: parsed and planned once per connection instead of for every batch.
  const res = await db.pool.query<{ events: number }>({
    name: "record-tracking-hits",
    text: HITS_SQL,
    values: [
      ids,
      kinds,
      ats,
      urls,
      envelopeTemplate(RoutingKeys.emailOpened),
      envelopeTemplate(RoutingKeys.emailClicked),
      Exchanges.emailEvents,
      eventIds,
    ],
  });
  return res.rows[0]?.events ?? 0;
}
