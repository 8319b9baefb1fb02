import { isUuid, type ProjectId } from "@emailsvc/contracts";
import { createBatcher } from "./batcher";
import { connOf, type Db, type DbOrClient, type Queryable } from "./create-db";

// The webhook deliveries aggregate (spec 6.3): one delivery per (event, kind) with its stored body, and the
// attempts logged against it.

/** The send an email event is about, as its client webhook body is built from it (webhook-dispatcher). */
export interface EventSource {
  id: string;
  project_id: ProjectId;
  is_test: boolean;
  recipient: string;
  provider_message_id: string | null;
  campaign_id: string | null;
  batch_id: string | null;
  email_type: string;
  email_id: string;
  from_email: string;
  /** As stored: for a batch, with the recipient's `data` still to substitute (the worker did, per send). */
  subject: string;
  from_template: boolean;
  data: Record<string, unknown> | null;
  webhook_url: string | null;
  webhook_url_dev: string | null;
}

/** Which of a project's two pairs of URLs a delivery goes to: email events, or inbound replies. */
export type DeliveryKind = "outbound" | "inbound";

export interface DeliveryRow {
  id: string;
  project_id: ProjectId;
  is_test: boolean;
  url: string | null;
  body: string;
  status: string;
  attempts: number;
}

/** A delivery as the attempt needs it: the stored row, the signing key of its mode and the URL as it is now. */
export interface LoadedDelivery {
  delivery: DeliveryRow;
  keyCiphertext: string | null;
  url: string | null;
}

/** The stored delivery's columns of a load (null when none is stored yet), and the facts beside them. */
interface StoredColumns {
  d_id: string | null;
  d_status: string | null;
  d_attempts: number | null;
  d_url: string | null;
  d_body: string | null;
  d_is_test: boolean | null;
  d_project_id: ProjectId | null;
  key_ciphertext: string | null;
  /** The project's URL for the delivery's mode now: every attempt goes there, so a fixed URL is used next. */
  cur_url: string | null;
}

export type OutboundLoad = Partial<EventSource> & StoredColumns;
export type InboundLoad = StoredColumns & {
  id: string | null;
  project_id: ProjectId | null;
  is_test: boolean | null;
  webhook_body: string | null;
};

const STORED = `d.id AS d_id, d.status AS d_status, d.attempts AS d_attempts, d.url AS d_url, d.body AS d_body,
         d.is_test AS d_is_test, d.project_id AS d_project_id`;

/**
 * One round trip for a batch of events: for each, the stored delivery if there is one, else the facts to build it
 * from, and in both cases the encrypted signing key of the send's mode (`n`: the event's place in the batch).
 */
const LOAD_OUTBOUND_SQL = `
  SELECT t.n, ${STORED},
         a.id, a.project_id, a.is_test, a.recipient, a.provider_message_id, a.campaign_id, a.batch_id, a.email_type,
         m.id AS email_id, m.from_email, m.subject, m.template_id IS NOT NULL AS from_template, a.data,
         p.webhook_url, p.webhook_url_dev, k.key_ciphertext,
         NULLIF(CASE WHEN COALESCE(d.is_test, a.is_test) THEN p.webhook_url_dev ELSE p.webhook_url END, '') AS cur_url
    FROM unnest($1::text[], $2::uuid[], $3::uuid[]) WITH ORDINALITY AS t(event_id, activity_id, project_id, n)
    LEFT JOIN webhook_deliveries d ON d.event_id = t.event_id AND d.kind = 'outbound'
    -- by primary key only, then the project: with both in one condition, a table never analyzed (autovacuum off,
    -- a fresh database) gets the (project_id, created_at) index and every event read the project's whole history
    LEFT JOIN LATERAL (SELECT * FROM activities WHERE id = t.activity_id OFFSET 0) a ON a.project_id = t.project_id
    LEFT JOIN email_messages m ON m.id = a.email_message_id
    LEFT JOIN projects p ON p.id = COALESCE(d.project_id, a.project_id)
    LEFT JOIN api_keys k ON k.project_id = COALESCE(d.project_id, a.project_id)
                        AND k.active_mode = CASE WHEN COALESCE(d.is_test, a.is_test) THEN 'test' ELSE 'live' END`;

/**
 * The same for an inbound reply (email.inbound): its body was built and stored by inbound-mail with the reply
 * (spec 6.2's exact body), and it goes to the project's inbound URL of the reply's mode.
 */
const LOAD_INBOUND_SQL = `
  SELECT ${STORED},
         im.id, im.project_id, im.is_test, im.webhook_body, k.key_ciphertext,
         NULLIF(CASE WHEN COALESCE(d.is_test, im.is_test) THEN p.inbound_webhook_url_dev ELSE p.inbound_webhook_url END, '') AS cur_url
    FROM (SELECT 1) one
    LEFT JOIN webhook_deliveries d ON d.event_id = $1 AND d.kind = 'inbound'
    LEFT JOIN LATERAL (SELECT * FROM inbound_messages WHERE id = $2::uuid OFFSET 0) im ON im.project_id = $3::uuid
    LEFT JOIN projects p ON p.id = COALESCE(d.project_id, im.project_id)
    LEFT JOIN api_keys k ON k.project_id = COALESCE(d.project_id, im.project_id)
                        AND k.active_mode = CASE WHEN COALESCE(d.is_test, im.is_test) THEN 'test' ELSE 'live' END`;

export interface OutboundRef {
  projectId: ProjectId;
  eventId: string;
  activityId: string;
}

/** Email events' deliveries (stored or not) with the sends they are about, each scoped to its send's project. */
export async function loadOutboundDeliveries(db: Db, refs: OutboundRef[]): Promise<(OutboundLoad | null)[]> {
  const { rows } = await db.pool.query<OutboundLoad & { n: string }>(LOAD_OUTBOUND_SQL, [
    refs.map((r) => r.eventId),
    // an id that is not a uuid finds nothing (as a send that does not exist)
    refs.map((r) => (isUuid(r.activityId) ? r.activityId : null)),
    refs.map((r) => (isUuid(r.projectId) ? r.projectId : null)),
  ]);
  const out = new Array<OutboundLoad | null>(refs.length).fill(null);
  for (const { n, ...row } of rows) out[Number(n) - 1] = row;
  return out;
}

/** One email event's delivery (stored or not) with the send it is about, scoped to the send's project. */
export async function loadOutboundDelivery(
  db: Db,
  projectId: ProjectId,
  eventId: string,
  activityId: string,
): Promise<OutboundLoad | null> {
  return (await loadOutboundDeliveries(db, [{ projectId, eventId, activityId }]))[0]!;
}

/**
 * Loads group-committed like `createDeliveryWrites`' writes: the events a consumer holds at once (a prefetch
 * burst, and those arriving while one load runs) are read in one round trip, not one each.
 */
export function createOutboundLoads(db: Db): (ref: OutboundRef) => Promise<OutboundLoad | null> {
  const loads = createBatcher<OutboundRef, OutboundLoad | null>({
    run: (refs) => loadOutboundDeliveries(db, refs),
    maxBatch: 100,
    maxInFlight: 2,
    gatherTurn: true,
  });
  return (ref) => loads.submit(ref);
}

/** An inbound reply's delivery (stored or not) with the reply, scoped to the reply's project. */
export async function loadInboundDelivery(
  db: Db,
  projectId: ProjectId,
  eventId: string,
  inboundEmailId: string,
): Promise<InboundLoad | null> {
  return (
    (await db.pool.query<InboundLoad>(LOAD_INBOUND_SQL, [eventId, inboundEmailId, projectId])).rows[0] ?? null
  );
}

/** The delivery a load found stored, or null when it found none. */
export function storedDelivery(r: StoredColumns): DeliveryRow | null {
  if (!r.d_id) return null;
  return {
    id: r.d_id,
    project_id: r.d_project_id!,
    is_test: r.d_is_test!,
    url: r.d_url,
    body: r.d_body!,
    status: r.d_status!,
    attempts: r.d_attempts!,
  };
}

export interface NewDelivery {
  eventId: string;
  kind: DeliveryKind;
  event: string;
  isTest: boolean;
  url: string | null;
  body: string;
}

interface StoreItem {
  projectId: ProjectId;
  delivery: NewDelivery;
}

const DELIVERY_COLUMNS = "id, project_id, is_test, url, body, status, attempts";

/** The deliveries stored for these events, read in a statement of its own (it sees rows committed meanwhile). */
async function storedByEvent(
  db: Db,
  items: readonly { delivery: Pick<NewDelivery, "eventId" | "kind"> }[],
): Promise<(DeliveryRow & { event_id: string; kind: string })[]> {
  const { rows } = await db.pool.query<DeliveryRow & { event_id: string; kind: string }>(
    `SELECT ${DELIVERY_COLUMNS}, event_id, kind FROM webhook_deliveries
      WHERE (event_id, kind) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [items.map((i) => i.delivery.eventId), items.map((i) => i.delivery.kind)],
  );
  return rows;
}

/**
 * Stores each event's delivery once, `pending` (or `skipped` without a URL), many in one statement. A redelivered
 * copy's consumer may have stored one first: that one is returned. One answer per item, in order.
 */
export async function storeDeliveries(db: Db, items: readonly StoreItem[]): Promise<(DeliveryRow | null)[]> {
  const col = <T>(f: (d: NewDelivery, p: ProjectId) => T) => items.map((i) => f(i.delivery, i.projectId));
  const inserted = await db.pool.query<DeliveryRow & { event_id: string; kind: string }>(
    `INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, updated_at)
     SELECT gen_random_uuid(), x.project_id, x.event_id, x.kind, x.event, x.is_test, x.url, x.body,
            CASE WHEN x.url IS NULL THEN 'skipped' ELSE 'pending' END, now()
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[], $7::text[])
         AS x(project_id, event_id, kind, event, is_test, url, body)
     ON CONFLICT (event_id, kind) DO NOTHING
     RETURNING ${DELIVERY_COLUMNS}, event_id, kind`,
    [
      col((_, p) => p),
      col((d) => d.eventId),
      col((d) => d.kind),
      col((d) => d.event),
      col((d) => d.isTest),
      col((d) => d.url),
      col((d) => d.body),
    ],
  );
  const key = (eventId: string, kind: string) => `${kind} ${eventId}`;
  const found = new Map<string, DeliveryRow>();
  const keep = ({ event_id, kind, ...row }: DeliveryRow & { event_id: string; kind: string }) =>
    found.set(key(event_id, kind), row);
  inserted.rows.forEach(keep);
  const missing = items.filter((i) => !found.has(key(i.delivery.eventId, i.delivery.kind)));
  if (missing.length) {
    // stored before (a redelivery, or the same event twice in this batch): read in a statement of its own, which
    // also sees a row another transaction committed while the insert ran
    (await storedByEvent(db, missing)).forEach(keep);
  }
  return items.map((i) => found.get(key(i.delivery.eventId, i.delivery.kind)) ?? null);
}

/** `storeDeliveries` for one. */
export async function storeDelivery(
  db: Db,
  projectId: ProjectId,
  d: NewDelivery,
): Promise<DeliveryRow | null> {
  return (await storeDeliveries(db, [{ projectId, delivery: d }]))[0]!;
}

/** The project has no URL for the delivery's mode (any more): no attempt follows, it ends as `skipped`. */
export async function skipDelivery(db: Db, eventId: string, kind: DeliveryKind): Promise<void> {
  await db.pool.query(
    `UPDATE webhook_deliveries SET status = 'skipped', next_attempt_at = NULL, updated_at = now()
      WHERE event_id = $1 AND kind = $2 AND status IN ('pending', 'failed')`,
    [eventId, kind],
  );
}

export interface AttemptRecord {
  attempt: number;
  statusCode: number | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  status: string;
  nextDelayMs: number | null;
  url: string;
}

interface AttemptItem {
  delivery: Pick<DeliveryRow, "id" | "project_id">;
  attempt: AttemptRecord;
}

/** Attempts logged and their deliveries moved on (status, the URL each went to, when the next is due), many in one statement. */
export async function recordAttempts(db: Db, items: readonly AttemptItem[]): Promise<void[]> {
  const col = <T>(f: (a: AttemptRecord) => T) => items.map((i) => f(i.attempt));
  await db.pool.query(
    `WITH x AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::int[], $5::text[], $6::int[], $7::text[],
                            $8::text[], $9::int[], $10::text[])
         AS x(id, project_id, attempt, status_code, response_body, duration_ms, error, status, next_delay_ms, url)
     ), a AS (
       INSERT INTO webhook_attempts (id, delivery_id, project_id, attempt_number, status_code, response_body, duration_ms, error)
       SELECT gen_random_uuid(), id, project_id, attempt, status_code, response_body, duration_ms, error FROM x
     )
     UPDATE webhook_deliveries d SET attempts = x.attempt, status = x.status, last_status_code = x.status_code,
            url = x.url, updated_at = now(),
            next_attempt_at = CASE WHEN x.next_delay_ms IS NULL THEN NULL
                                   ELSE now() + x.next_delay_ms * interval '1 millisecond' END
       FROM x WHERE d.id = x.id`,
    [
      items.map((i) => i.delivery.id),
      items.map((i) => i.delivery.project_id),
      col((a) => a.attempt),
      col((a) => a.statusCode),
      col((a) => a.responseBody),
      col((a) => a.durationMs),
      col((a) => a.error),
      col((a) => a.status),
      col((a) => a.nextDelayMs),
      col((a) => a.url),
    ],
  );
  return items.map(() => undefined);
}

/** `recordAttempts` for one. */
export async function recordAttempt(
  db: Db,
  d: Pick<DeliveryRow, "id" | "project_id">,
  a: AttemptRecord,
): Promise<void> {
  await recordAttempts(db, [{ delivery: d, attempt: a }]);
}

interface FirstAttemptItem {
  projectId: ProjectId;
  delivery: NewDelivery;
  attempt: AttemptRecord;
}

/**
 * Deliveries stored together with their first attempt, made before they were stored: one statement writes the
 * delivery (its status, attempt count, URL and next attempt as `recordAttempts` would set them) and logs the
 * attempt. Storing first cost a statement of its own per event (a third of the dispatcher's writes). One answer
 * per item, in order: null when stored, or the delivery another copy of the event stored first (a redelivery
 * that ran at the same time), on which the caller logs its attempt instead.
 */
export async function storeFirstAttempts(
  db: Db,
  items: readonly FirstAttemptItem[],
): Promise<(DeliveryRow | null)[]> {
  const col = <T>(f: (i: FirstAttemptItem) => T) => items.map(f);
  const { rows } = await db.pool.query<{ n: string }>(
    `WITH x AS (
       SELECT *, row_number() OVER (PARTITION BY event_id, kind ORDER BY n) AS k
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[], $7::int[],
                     $8::text[], $9::int[], $10::text[], $11::text[], $12::int[], $13::text[])
           WITH ORDINALITY AS x(project_id, event_id, kind, event, is_test, body, status_code, response_body,
                                duration_ms, error, status, next_delay_ms, url, n)
     ), d AS (
       INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, attempts,
                                       last_status_code, next_attempt_at, updated_at)
       SELECT gen_random_uuid(), project_id, event_id, kind, event, is_test, url, body, status, 1, status_code,
              CASE WHEN next_delay_ms IS NULL THEN NULL ELSE now() + next_delay_ms * interval '1 millisecond' END,
              now()
         FROM x WHERE k = 1
       ON CONFLICT (event_id, kind) DO NOTHING
       RETURNING id, event_id, kind
     ), a AS (
       INSERT INTO webhook_attempts (id, delivery_id, project_id, attempt_number, status_code, response_body, duration_ms, error)
       SELECT gen_random_uuid(), d.id, x.project_id, 1, x.status_code, x.response_body, x.duration_ms, x.error
         FROM x JOIN d ON d.event_id = x.event_id AND d.kind = x.kind AND x.k = 1
     )
     SELECT x.n FROM x JOIN d ON d.event_id = x.event_id AND d.kind = x.kind AND x.k = 1`,
    [
      col((i) => i.projectId),
      col((i) => i.delivery.eventId),
      col((i) => i.delivery.kind),
      col((i) => i.delivery.event),
      col((i) => i.delivery.isTest),
      col((i) => i.delivery.body),
      col((i) => i.attempt.statusCode),
      col((i) => i.attempt.responseBody),
      col((i) => i.attempt.durationMs),
      col((i) => i.attempt.error),
      col((i) => i.attempt.status),
      col((i) => i.attempt.nextDelayMs),
      col((i) => i.attempt.url),
    ],
  );
  const stored = new Set(rows.map((r) => Number(r.n) - 1));
  const others = items.filter((_, k) => !stored.has(k));
  if (!others.length) return items.map(() => null);
  // stored by another copy first (or the same event twice in this batch): that delivery, read in a statement of
  // its own, which sees a row another transaction committed while the insert ran
  const found = new Map(
    (await storedByEvent(db, others)).map(({ event_id, kind, ...row }) => [`${kind} ${event_id}`, row]),
  );
  return items.map((i, k) =>
    stored.has(k) ? null : (found.get(`${i.delivery.kind} ${i.delivery.eventId}`) ?? null),
  );
}

/** How a dispatcher stores deliveries and logs attempts. */
export interface DeliveryWrites {
  store(projectId: ProjectId, d: NewDelivery): Promise<DeliveryRow | null>;
  record(d: Pick<DeliveryRow, "id" | "project_id">, a: AttemptRecord): Promise<void>;
  /** `storeFirstAttempts` for one: null when stored, else the delivery stored first by another copy. */
  storeAttempted(projectId: ProjectId, d: NewDelivery, a: AttemptRecord): Promise<DeliveryRow | null>;
}

/**
 * Group commit of a dispatcher's concurrent deliveries (up to its prefetch): the stores, and the attempts, that
 * arrive while one statement runs share the next, so each pays a share of one commit and round trip, not its own.
 */
export function createDeliveryWrites(db: Db): DeliveryWrites {
  const stores = createBatcher<StoreItem, DeliveryRow | null>({ run: (items) => storeDeliveries(db, items) });
  const attempts = createBatcher<AttemptItem, void>({ run: (items) => recordAttempts(db, items) });
  const firsts = createBatcher<FirstAttemptItem, DeliveryRow | null>({
    run: (items) => storeFirstAttempts(db, items),
  });
  return {
    store: (projectId, delivery) => stores.submit({ projectId, delivery }),
    record: (delivery, attempt) => attempts.submit({ delivery, attempt }),
    storeAttempted: (projectId, delivery, attempt) => firsts.submit({ projectId, delivery, attempt }),
  };
}

/** A delivery as a redelivery decides on it: its event, its state, and whether its project has a URL for it now. */
export interface RedeliveryCandidate {
  event_id: string;
  event: string;
  project_id: ProjectId;
  body: string;
  is_test: boolean;
  status: string;
  kind: DeliveryKind;
  /** The project has a URL for the delivery's kind and mode now. */
  has_url: boolean;
}

/**
 * The delivery, locked for the rest of the transaction `c` (the admin API's redeliver); undefined when none, or when
 * `projectId` is given and the delivery is another project's (the project-scoped route; the platform route gives none).
 */
export async function lockDeliveryForRedelivery(
  c: Queryable,
  deliveryId: string,
  projectId: ProjectId | null = null,
): Promise<RedeliveryCandidate | undefined> {
  if (!isUuid(deliveryId)) return undefined;
  const { rows } = await c.query<RedeliveryCandidate>(
    `SELECT d.event_id, d.event, d.project_id, d.body, d.is_test, d.status, d.kind,
            COALESCE(CASE WHEN d.kind = 'inbound'
                          THEN CASE WHEN d.is_test THEN p.inbound_webhook_url_dev ELSE p.inbound_webhook_url END
                          ELSE CASE WHEN d.is_test THEN p.webhook_url_dev ELSE p.webhook_url END END, '') <> '' AS has_url
       FROM webhook_deliveries d JOIN projects p ON p.id = d.project_id
      WHERE d.id = $1 AND ($2::uuid IS NULL OR d.project_id = $2) FOR UPDATE OF d`,
    [deliveryId, projectId],
  );
  return rows[0];
}

/** The delivery back to `pending` with a fresh attempt budget (the webhook-dispatcher sends it again). */
export async function resetDeliveryToPending(c: Queryable, deliveryId: string): Promise<void> {
  await c.query(
    "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = NULL, updated_at = now() WHERE id = $1",
    [deliveryId],
  );
}

/** One project's latest deliveries (at most 200, newest first), optionally of one status. */
export async function listProjectDeliveries(
  db: Db,
  projectId: ProjectId,
  status: string | null,
): Promise<Record<string, unknown>[]> {
  const { rows } = await db.pool.query(
    `SELECT id, event_id, event, is_test, url, status, attempts, last_status_code, created_at, updated_at FROM webhook_deliveries
      WHERE project_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC LIMIT 200`,
    [projectId, status],
  );
  return rows;
}

// --- the dashboard's webhooks page (issue 45) -------------------------------------------------------------------

export interface DeliveryListFilter {
  /** spec 2 and 5: test sends' deliveries apart from live ones */
  isTest: boolean;
  statuses?: readonly string[];
  /** the event type, e.g. email.bounced */
  event?: string;
  /** keyset: the (created_at, id) of the previous page's last row */
  after?: { createdAt: Date; id: string };
  limit: number;
}

export interface DeliveryListRow {
  id: string;
  event_id: string;
  kind: string;
  event: string;
  is_test: boolean;
  url: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const LIST_COLUMNS = `id, event_id, kind, event, is_test, url, status, attempts, last_status_code, next_attempt_at,
       created_at, updated_at`;

/**
 * One page of a project's deliveries, newest first, keyset-paged on (created_at, id) over the (project_id,
 * created_at) index: a page costs the same at millions of deliveries as at a few. Never OFFSET.
 */
export async function listDeliveries(
  db: DbOrClient,
  projectId: ProjectId,
  f: DeliveryListFilter,
): Promise<DeliveryListRow[]> {
  const { rows } = await connOf(db).query<DeliveryListRow>(
    `SELECT ${LIST_COLUMNS} FROM webhook_deliveries
      WHERE project_id = $1 AND is_test = $2
        AND ($3::text[] IS NULL OR status = ANY($3))
        AND ($4::text IS NULL OR event = $4)
        AND ($5::timestamptz IS NULL OR (created_at, id) < ($5, $6::uuid))
      ORDER BY created_at DESC, id DESC
      LIMIT $7`,
    [
      projectId,
      f.isTest,
      f.statuses?.length ? f.statuses : null,
      f.event ?? null,
      f.after?.createdAt ?? null,
      f.after?.id ?? null,
      f.limit,
    ],
  );
  return rows;
}

export interface AttemptRow {
  attempt_number: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** the first 500 characters of the receiver's answer */
  response_excerpt: string | null;
  created_at: Date;
}

/** One delivery of the project with the body it sends and its attempts, oldest first; undefined when none. */
export async function findDeliveryDetail(
  db: DbOrClient,
  projectId: ProjectId,
  deliveryId: string,
): Promise<{ delivery: DeliveryListRow & { body: string }; attempts: AttemptRow[] } | undefined> {
  if (!isUuid(deliveryId)) return undefined;
  const conn = connOf(db);
  const [d, a] = await Promise.all([
    conn.query<DeliveryListRow & { body: string }>(
      `SELECT ${LIST_COLUMNS}, body FROM webhook_deliveries WHERE id = $2 AND project_id = $1`,
      [projectId, deliveryId],
    ),
    conn.query<AttemptRow>(
      `SELECT attempt_number, status_code, duration_ms, error, left(response_body, 500) AS response_excerpt, created_at
         FROM webhook_attempts WHERE delivery_id = $2 AND project_id = $1
        ORDER BY created_at, attempt_number LIMIT 200`,
      [projectId, deliveryId],
    ),
  ]);
  const delivery = d.rows[0];
  return delivery ? { delivery, attempts: a.rows } : undefined;
}

/** A project's four receivers as set now, with since when each has been failing (null: healthy). */
export interface WebhookReceivers {
  webhook_url: string | null;
  webhook_failing_since: Date | null;
  webhook_url_dev: string | null;
  webhook_dev_failing_since: Date | null;
  inbound_webhook_url: string | null;
  inbound_webhook_failing_since: Date | null;
  inbound_webhook_url_dev: string | null;
  inbound_webhook_dev_failing_since: Date | null;
}

/** The project's receivers and their failing state (set by the webhook-dispatcher); undefined when no project. */
export async function findWebhookReceivers(
  db: DbOrClient,
  projectId: ProjectId,
): Promise<WebhookReceivers | undefined> {
  const { rows } = await connOf(db).query<WebhookReceivers>(
    `SELECT webhook_url, webhook_failing_since, webhook_url_dev, webhook_dev_failing_since,
            inbound_webhook_url, inbound_webhook_failing_since, inbound_webhook_url_dev,
            inbound_webhook_dev_failing_since
       FROM projects WHERE id = $1`,
    [projectId],
  );
  return rows[0];
}
