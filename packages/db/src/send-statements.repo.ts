import { Exchanges, makeEnvelope, projectIdOf, RoutingKeys, type ProjectId } from "@emailsvc/contracts";
import { createBatcher } from "./batcher";
import { type Db, queryPlanned } from "./create-db";
import {
  clientWebhookExistsSql,
  insertOutboxRows,
  type NewOutboxRow,
  OUTBOX_INSERT,
  OUTBOX_INSERT_AVAILABLE,
  type OutboxHandoff,
  type OutboxRecord,
  outboxAvailableSql,
} from "./outbox";
import { timeOrderedUuid } from "./time-ordered-uuid";

// The send-worker's statements on the activities aggregate: read a queued send, claim it (queued → sending, with
// its send_claims row), record the provider's answer (sent + email.sent) or a failure, release or re-queue it.

export interface ClaimedActivity {
  id: string;
  projectId: ProjectId | null;
  emailMessageId: string;
  recipient: string;
  data: Record<string, unknown> | null;
  replyToken: string | null;
  isTest: boolean;
  /** One recipient of a /v1/send-batch call. */
  inBatch: boolean;
  /** The campaign whose dispatcher created it (its message is shared by a cycle's recipients). */
  campaignId: string | null;
}

export interface StoredMessage {
  id: string;
  fromEmail: string;
  fromName: string | null;
  subject: string;
  html: string;
  text: string | null;
  cc: string[];
  bcc: string[];
  headers: Record<string, string> | null;
  attachments: { filename: string; contentType: string; size: number; storageKey: string }[] | null;
  templateId: string | null;
  source: string;
  emailType: string;
}

export interface Claim {
  activity: ClaimedActivity;
  /** The message row, fetched in the same round trip for single sends; null for a batch's shared message. */
  message: StoredMessage | null;
}

type MessageRow = Record<string, unknown>;

function toMessage(r: MessageRow): StoredMessage {
  return {
    id: r.id as string,
    fromEmail: r.from_email as string,
    fromName: r.from_name as string | null,
    subject: r.subject as string,
    html: r.html as string,
    text: r.text as string | null,
    cc: (r.cc as string[]) ?? [],
    bcc: (r.bcc as string[]) ?? [],
    headers: r.headers as Record<string, string> | null,
    attachments: r.attachments as StoredMessage["attachments"],
    templateId: r.template_id as string | null,
    source: r.source as string,
    emailType: r.email_type as string,
  };
}

/**
 * The queued activities among `ids`, each with its message unless it belongs to a batch or a campaign cycle (up to
 * 12,500 activities share that one: the caller caches it), in one read. Nothing is claimed yet: the claim comes right before the provider
 * call (CLAIM_SQL), so a worker that dies while rendering or waiting for a rate-limit slot leaves the activity
 * `queued`, and the redelivered message sends it. An activity that is not `queued` (sending, sent, cancelled,
 * failed) answers null and is never sent again.
 */
const LOAD_SQL = `
SELECT a.id, a.project_id, a.email_message_id, a.recipient, a.data, a.reply_token, a.is_test,
       a.batch_id IS NOT NULL AS in_batch, a.campaign_id,
       CASE WHEN a.batch_id IS NULL AND a.campaign_id IS NULL THEN
         json_build_object('id', m.id, 'from_email', m.from_email, 'from_name', m.from_name, 'subject', m.subject,
           'html', m.html, 'text', m.text, 'cc', m.cc, 'bcc', m.bcc, 'headers', m.headers,
           'attachments', m.attachments, 'template_id', m.template_id, 'source', m.source,
           'email_type', m.email_type)
       END AS m
  FROM activities a LEFT JOIN email_messages m ON m.id = a.email_message_id
 WHERE a.id = ANY($1::uuid[]) AND a.status = 'queued'`;

/** One answer per id, in order; an id listed twice answers on its first place only (the others null). */
export async function loadQueued(db: Db, ids: readonly string[]): Promise<(Claim | null)[]> {
  const res = await queryPlanned<Record<string, unknown>>(db, LOAD_SQL, [ids]);
  const byId = new Map<string, Claim>();
  for (const r of res.rows) {
    byId.set(r.id as string, {
      activity: {
        id: r.id as string,
        projectId: r.project_id === null ? null : projectIdOf(r.project_id as string),
        emailMessageId: r.email_message_id as string,
        recipient: r.recipient as string,
        data: r.data as Record<string, unknown> | null,
        replyToken: r.reply_token as string | null,
        isTest: r.is_test as boolean,
        inBatch: r.in_batch as boolean,
        campaignId: r.campaign_id as string | null,
      },
      message: r.m ? toMessage(r.m as MessageRow) : null,
    });
  }
  return ids.map((id) => {
    const claim = byId.get(id) ?? null;
    byId.delete(id);
    return claim;
  });
}

/**
 * queued → sending, atomically, for many activities in one statement: only one worker (and only one delivery of
 * a redelivered message) wins each. Taken with the rate-limit slot in hand and the MIME built, so `sending` means
 * the provider call is under way; one answer per id, in order (an id listed twice wins once). Each claim also
 * writes its `send_claims` row, which the answer deletes: a row older than the reconcile window is a claim
 * whose worker died before the answer (reconcile.repo.ts).
 */
const CLAIM_SQL = `
WITH c AS (
  UPDATE activities SET status = 'sending', claimed_at = now(), send_attempts = send_attempts + 1, updated_at = now()
   WHERE id = ANY($1::uuid[]) AND status = 'queued'
   RETURNING id, project_id, claimed_at
), l AS (
  INSERT INTO send_claims (activity_id, project_id, claimed_at) SELECT id, project_id, claimed_at FROM c
  ON CONFLICT (activity_id) DO UPDATE SET claimed_at = EXCLUDED.claimed_at
)
SELECT id FROM c`;

export async function claimActivities(db: Db, ids: readonly string[]): Promise<boolean[]> {
  const res = await queryPlanned<{ id: string }>(db, CLAIM_SQL, [ids]);
  const won = new Set(res.rows.map((r) => r.id));
  return ids.map((id) => won.delete(id));
}

export async function loadMessage(db: Db, id: string): Promise<StoredMessage> {
  const res = await db.pool.query(
    `SELECT id, from_email, from_name, subject, html, text, cc, bcc, headers, attachments, template_id, source, email_type FROM email_messages WHERE id = $1`,
    [id],
  );
  const r = res.rows[0] as MessageRow | undefined;
  if (!r) throw new Error(`email message ${id} not found`);
  return toMessage(r);
}

/** cc/bcc belong to the message, not to each recipient: only its first activity carries them. */
export async function isFirstActivity(db: Db, emailMessageId: string, activityId: string): Promise<boolean> {
  const res = await db.pool.query<{ id: string }>(
    // not a cancelled one (a recipient suppressed when its scheduled send was handed over): the copies go with
    // the first recipient that is sent
    "SELECT id FROM activities WHERE email_message_id = $1 AND status <> 'cancelled' ORDER BY created_at, id LIMIT 1",
    [emailMessageId],
  );
  return res.rows[0]?.id === activityId;
}

function eventRow(
  routingKey: typeof RoutingKeys.emailSent | typeof RoutingKeys.emailFailed,
  a: ClaimedActivity,
  extra: Record<string, unknown>,
): [string, string, string, string] | [null, null, null, null] {
  const envelope = eventEnvelope(routingKey, a, extra);
  if (!envelope) return [null, null, null, null];
  return [timeOrderedUuid(), Exchanges.emailEvents, routingKey, JSON.stringify(envelope)];
}

function eventEnvelope(
  routingKey: typeof RoutingKeys.emailSent | typeof RoutingKeys.emailFailed,
  a: ClaimedActivity,
  extra: Record<string, unknown>,
) {
  if (!a.projectId) return null;
  return makeEnvelope(
    routingKey,
    { activityId: a.id, projectId: a.projectId, isTest: a.isTest, ...extra },
    { projectId: a.projectId },
  );
}

/**
 * sending → sent with the provider id, and each one's email.sent event, for many activities in one statement.
 * As for every client event, the outbox row is written only when the project has a webhook URL for the send's
 * mode. One answer per item, in order: whether its outbox row was written due at once (the caller kicks the
 * relay); with `handoff` and a running relay, they are written held and handed to it, and every answer is false.
 */
const MARK_SENT_SQL = `
WITH x AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::boolean[])
    AS x(id, provider_message_id, event_id, payload, project_id, is_test)
), upd AS (
  UPDATE activities a SET status = 'sent', provider_message_id = x.provider_message_id, sent_at = now(), updated_at = now(),
         message_id = lower(x.provider_message_id) || '@' || $9::text
    FROM x WHERE a.id = x.id AND a.status = 'sending'
    RETURNING a.id
), answered AS (
  DELETE FROM send_claims c USING upd WHERE c.activity_id = upd.id
)
${OUTBOX_INSERT_AVAILABLE}
SELECT x.event_id, $7, $8, x.payload::jsonb, ${outboxAvailableSql("$10::boolean")} FROM x
 WHERE x.event_id IS NOT NULL AND ${clientWebhookExistsSql("x.project_id", "x.is_test")}
RETURNING id`;

export interface SentItem {
  activity: ClaimedActivity;
  providerMessageId: string;
}

/**
 * `messageIdDomain`: SES overrides the MIME's Message-ID with `<provider id>@<domain>` (sesMessageIdDomain of
 * @emailsvc/provider); stored bare and lower-case, the id an inbound reply's In-Reply-To names.
 */
export async function markSentMany(
  db: Db,
  items: readonly SentItem[],
  messageIdDomain = "email.amazonses.com",
  handoff?: OutboxHandoff,
): Promise<boolean[]> {
  // with a relay to hand them to, the events are written held for it and handed over after the commit: nothing
  // is left for the caller to kick
  const take = handoff?.() ?? null;
  const n = items.length;
  const envelopes = new Array<ReturnType<typeof eventEnvelope>>(n);
  const cols = {
    id: new Array<string>(n),
    pmid: new Array<string>(n),
    eventId: new Array<string | null>(n),
    payload: new Array<string | null>(n),
    projectId: new Array<string | null>(n),
    isTest: new Array<boolean>(n),
  };
  items.forEach(({ activity: a, providerMessageId }, i) => {
    const envelope = eventEnvelope(RoutingKeys.emailSent, a, {
      providerMessageId,
      occurredAt: new Date().toISOString(),
    });
    envelopes[i] = envelope;
    cols.id[i] = a.id;
    cols.pmid[i] = providerMessageId;
    cols.eventId[i] = envelope ? timeOrderedUuid() : null;
    cols.payload[i] = envelope ? JSON.stringify(envelope) : null;
    cols.projectId[i] = a.projectId;
    cols.isTest[i] = a.isTest;
  });
  const res = await queryPlanned<{ id: string }>(db, MARK_SENT_SQL, [
    cols.id,
    cols.pmid,
    cols.eventId,
    cols.payload,
    cols.projectId,
    cols.isTest,
    Exchanges.emailEvents,
    RoutingKeys.emailSent,
    messageIdDomain,
    take !== null,
  ]);
  const written = new Set(res.rows.map((r) => r.id));
  const wrote = cols.eventId.map((id) => id !== null && written.has(id));
  if (!take) return wrote;
  const rows: OutboxRecord[] = [];
  wrote.forEach((w, i) => {
    if (w)
      rows.push({
        id: cols.eventId[i]!,
        exchange: Exchanges.emailEvents,
        routingKey: RoutingKeys.emailSent,
        payload: envelopes[i],
      });
  });
  if (rows.length) take(rows);
  return wrote.map(() => false);
}

/**
 * The worker's per-send statements, group-committed: a send's read, claim and mark-sent go to PostgreSQL
 * together with those of the other sends in flight (prefetch 20), one statement each instead of one per send.
 */
export interface SendStatements {
  /** The activity and its message while it is `queued`, else null. */
  load(id: string): Promise<Claim | null>;
  /** queued → sending; false when another delivery claimed it first. */
  claim(id: string): Promise<boolean>;
  /** sending → sent and its email.sent event; true when the caller must kick the relay (see `markSentMany`). */
  markSent(a: ClaimedActivity, providerMessageId: string): Promise<boolean>;
}

/** The most activities one claim statement takes (see createSendStatements). */
export const CLAIM_BATCH = 4;

export function createSendStatements(
  db: Db,
  opts: { messageIdDomain?: string; handoff?: OutboxHandoff } = {},
): SendStatements {
  // The activities of one message (about twenty since public-api shares a message between sends) are read in
  // the same turn: gathered, they share one statement instead of going first-alone-then-the-rest.
  const gatherTurn = true;
  const loads = createBatcher<string, Claim | null>({ run: (ids) => loadQueued(db, ids), gatherTurn });
  // Claims are the exception: every activity of a claim statement is claimed-but-unsent until its own request
  // has left, and they leave one after another once the statement answers; a worker that dies then leaves them
  // all `sending` (issue 30: 4 claimed within 5 ms, lost together). So a claim runs at once rather than waiting
  // for the rest of its turn, and at most CLAIM_BATCH share a statement. The reads and the mark-sents, where
  // group commit saves the most and no send waits in between, keep their batches.
  const claims = createBatcher<string, boolean>({
    run: (ids) => claimActivities(db, ids),
    maxBatch: CLAIM_BATCH,
  });
  const sent = createBatcher<SentItem, boolean>({
    run: (items) => markSentMany(db, items, opts.messageIdDomain, opts.handoff),
    gatherTurn,
  });
  return {
    load: (id) => loads.submit(id),
    claim: (id) => claims.submit(id),
    markSent: (activity, providerMessageId) => sent.submit({ activity, providerMessageId }),
  };
}

/**
 * sending → failed and the email.failed event in one statement (one round trip, atomic like a transaction).
 * email.failed is not a client event: its outbox row is written whether or not the project has a webhook URL.
 */
const MARK_FAILED_SQL = `
WITH upd AS (
  UPDATE activities SET status = 'failed', failed_at = now(), failure_reason = $2, updated_at = now()
   WHERE id = $1 AND status = 'sending'
   RETURNING id
), answered AS (
  DELETE FROM send_claims c USING upd WHERE c.activity_id = upd.id
)
${OUTBOX_INSERT}
SELECT $3::uuid, $4, $5, $6::jsonb WHERE $3::uuid IS NOT NULL`;

export async function markFailed(db: Db, a: ClaimedActivity, reason: string): Promise<void> {
  await db.pool.query(MARK_FAILED_SQL, [
    a.id,
    reason.slice(0, 1000),
    ...eventRow(RoutingKeys.emailFailed, a, { reason, occurredAt: new Date().toISOString() }),
  ]);
}

/** Gives a claim back (throttled or transient failure): the activity is sent on the next attempt. */
export async function releaseClaim(db: Db, id: string): Promise<void> {
  await db.pool.query(
    `WITH upd AS (
       UPDATE activities SET status = 'queued', claimed_at = NULL, updated_at = now()
        WHERE id = $1 AND status = 'sending' RETURNING id
     )
     DELETE FROM send_claims c USING upd WHERE c.activity_id = upd.id`,
    [id],
  );
}

/**
 * Throttled past the message's last attempt: fresh send requests (the send model's, on the lane the sends came
 * from), because throttling never counts as failure.
 */
export async function requeueActivities(db: Db, requests: readonly NewOutboxRow[]): Promise<void> {
  await insertOutboxRows(db.pool, [...requests]);
}

/**
 * The project's postal address for the footer of bulk mail, or null. Read once a minute per project at most (a
 * campaign's sends all ask).
 */
export function createPostalAddresses(
  db: Db,
  ttlMs = 60_000,
): (projectId: ProjectId) => Promise<string | null> {
  const cache = new Map<string, { at: number; value: Promise<string | null> }>();
  return (projectId) => {
    const hit = cache.get(projectId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    if (cache.size > 1000) cache.clear();
    const value = db.pool
      .query<{ postal_address: string | null }>("SELECT postal_address FROM projects WHERE id = $1", [
        projectId,
      ])
      .then((r) => r.rows[0]?.postal_address ?? null);
    cache.set(projectId, { at: Date.now(), value });
    value.catch(() => cache.delete(projectId));
    return value;
  };
}
