import { connOf, type DbOrClient, OUTBOX_INSERT } from "@emailsvc/db";
import { MONTHLY_QUOTA, usagePeriod } from "./quota";
import { laneRoute, type SendLane, type SendRequestOptions, sendRequests } from "./send-requests";
import { newReplyToken, type ProjectId } from "@emailsvc/contracts";
import { ABORT_IDEMPOTENCY, ABORT_QUOTA, gateCheck, gateCtes, type GatePlaceholders } from "./accept-gates";
import { jsonArrayInSlices, nextTurn, SLICE } from "./slices";

/**
 * Everything POST /v1/send-batch stores, already decided (suppressions applied, ids drawn, response built); a
 * campaign's dispatch cycle stores the same shape (one message, one activity per recipient with its variables).
 */
export interface NewBatch {
  projectId: ProjectId;
  /** The `batches` row of a /v1/send-batch call; null for a campaign's cycle (its activities carry campaign_id). */
  batchId: string | null;
  emailMessageId: string;
  /** email_messages.source: `batch` (default) or `campaign`. */
  source?: "batch" | "campaign";
  campaignId?: string | null;
  /** Extra headers of the message (a campaign's human Reply-To, spec 4.11). */
  headers?: Record<string, string> | null;
  /** The automatic reply-token Reply-To (default true); dashboard sends (campaigns) reply to a person instead. */
  replyTokens?: boolean;
  isTest: boolean;
  emailType: string;
  fromEmail: string;
  fromName: string | null;
  subject: string | null;
  html: string | null;
  text: string | null;
  templateId: string | null;
  total: number;
  /** Present for a scheduled batch; its row is only written when there is something to send. */
  schedule: {
    id: string;
    scheduledFor: Date;
    timezone: string;
    localTime: string;
    request: unknown;
  } | null;
  /** The recipients that get an activity, in request order. */
  activityIds: readonly string[];
  emails: readonly string[];
  data: readonly Record<string, unknown>[];
  /** The lane its send requests go in (immediate batches only: a scheduled one is handed over by the scheduler). */
  lane: SendLane;
  /** Ids per send request (default SEND_REQUESTED_MAX_IDS); and who asked, carried on the requests. */
  requests?: SendRequestOptions;
  /** Live sends count against the month's quota: the month of `at` (default now). */
  counted: boolean;
  at?: Date;
  idempotency: { key: string; fingerprint: string; status: number; bodyJson: string } | null;
}

export type InsertBatchResult = "inserted" | "idempotency_conflict" | "quota_exceeded";

/**
 * The whole batch in ONE statement (data-modifying CTEs): a statement is atomic, so every activity is stored
 * with its reply token, the quota and the outbox rows, or nothing is, in one round trip instead of a BEGIN …
 * COMMIT conversation. The gates (key already taken, quota reached) are checked by the final SELECT, which
 * runs before the big inserts and aborts the statement.
 *
 * The per-recipient columns travel as a few flat strings (ids and tokens comma-joined, addresses newline-
 * joined, data as one JSON array) instead of pg arrays: building and escaping 12,500-element array literals
 * cost more than the inserts' own JS. Validated addresses contain no whitespace, ids and tokens no comma.
 * Reply tokens are plain inserts (ON CONFLICT … RETURNING made that insert about 60% dearer); a collision with an
 * existing token fails the statement, and it is run again with the taken tokens drawn anew.
 */
const BATCH_GATES: GatePlaceholders = {
  project: "$1::uuid",
  key: "$14::text",
  fingerprint: "$15::text",
  status: "$16::int",
  body: "$17::jsonb",
  messageId: "$3::uuid",
  period: "$18::text",
  count: "$13::int",
  counts: "$19::boolean",
  limit: "$20::int",
};

const INSERT_BATCH_SQL = `
WITH ${gateCtes(BATCH_GATES)}, batch AS (
  INSERT INTO batches (id, project_id, is_test, total, queued, status, email_type, template_id, scheduled_for)
  SELECT $2::uuid, $1::uuid, $4::boolean, $12::int, $13::int, $21::text, $5::text, $11::uuid, $23::timestamptz
   WHERE $2::uuid IS NOT NULL
), msg AS (
  INSERT INTO email_messages (id, project_id, is_test, source, email_type, from_email, from_name, subject, html, text,
                              template_id, batch_id, campaign_id, headers)
  VALUES ($3::uuid, $1::uuid, $4::boolean, $34::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text,
          $11::uuid, $2::uuid, $35::uuid, $36::jsonb)
), sched AS (
  INSERT INTO scheduled_sends (id, project_id, status, scheduled_for, timezone, local_time, request, batch_id, updated_at)
  SELECT $22::uuid, $1::uuid, 'scheduled', $23::timestamptz, $24::text, $25::text, $26::jsonb, $2::uuid, now()
  WHERE $22::uuid IS NOT NULL
), rcpt AS (
  SELECT a, r, d, t FROM ROWS FROM (
    unnest(string_to_array($27::text, ',')::uuid[]),
    unnest(string_to_array($28::text, E'\\n')),
    jsonb_array_elements($29::jsonb),
    unnest(string_to_array($30::text, ','))
  ) AS x(a, r, d, t)
), act AS (
  INSERT INTO activities (id, project_id, email_message_id, batch_id, campaign_id, scheduled_send_id, is_test, email_type, recipient, data, status, reply_token)
  SELECT a, $1::uuid, $3::uuid, $2::uuid, $35::uuid, $22::uuid, $4::boolean, $5::text, r, d, $21::text, t FROM rcpt
), tok AS (
  INSERT INTO reply_tokens (token, project_id, activity_id) SELECT t, $1::uuid, a FROM rcpt WHERE t IS NOT NULL
), outbox AS (
  ${OUTBOX_INSERT}
  SELECT gen_random_uuid(), $31::text, $32::text, e FROM jsonb_array_elements($33::jsonb) AS e
)
${gateCheck(BATCH_GATES)}`;

/** Tokens among `tokens` that are already stored: only those are drawn again after a collision. */
const TAKEN_TOKENS_SQL = "SELECT token FROM reply_tokens WHERE token = ANY(string_to_array($1::text, ','))";

const MAX_ATTEMPTS = 5;

/**
 * `on` may be the Db or one client inside a transaction (a campaign's cycle moves its ledger rows in the same
 * transaction). Inside a transaction a failed statement aborts it, so a reply-token collision can only be retried
 * on a pool; sends without reply tokens (campaigns) never collide.
 */
export async function insertBatch(on: DbOrClient, b: NewBatch): Promise<InsertBatchResult> {
  const q = connOf(on);
  const n = b.activityIds.length;
  const withTokens = b.replyTokens !== false;
  // Drawn and encoded a slice per event-loop turn: done at once for 12,500 recipients, the tokens, the data's
  // JSON and the envelopes' held public-api's event loop for tens of milliseconds before the statement left.
  const tokens: string[] = [];
  if (withTokens)
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % SLICE === 0) await nextTurn();
      tokens.push(newReplyToken());
    }
  const dataJson = await jsonArrayInSlices(b.data);
  const route = laneRoute(b.lane);
  const envelopes =
    n > 0 && !b.schedule
      ? sendRequests(b.lane, b.projectId, b.activityIds, b.requests).map((r) => r.payload)
      : [];
  const envelopesJson = await jsonArrayInSlices(envelopes);
  const scheduled = b.schedule && n > 0 ? b.schedule : null;
  const params = [
    b.projectId,
    b.batchId,
    b.emailMessageId,
    b.isTest,
    b.emailType,
    b.fromEmail,
    b.fromName,
    b.subject,
    b.html,
    b.text,
    b.templateId,
    b.total,
    n,
    b.idempotency?.key ?? null,
    b.idempotency?.fingerprint ?? null,
    b.idempotency?.status ?? null,
    b.idempotency?.bodyJson ?? null,
    usagePeriod(b.at ?? new Date()),
    b.counted && n > 0,
    MONTHLY_QUOTA,
    b.schedule ? "scheduled" : "queued",
    scheduled?.id ?? null,
    b.schedule?.scheduledFor ?? null,
    scheduled?.timezone ?? null,
    scheduled?.localTime ?? null,
    scheduled ? JSON.stringify(scheduled.request) : null,
    b.activityIds.join(","),
    b.emails.join("\n"),
    dataJson,
    "", // the tokens, set per attempt
    route.exchange,
    route.routingKey,
    envelopesJson,
    b.source ?? "batch",
    b.campaignId ?? null,
    b.headers ? JSON.stringify(b.headers) : null,
  ];
  for (let attempt = 1; ; attempt++) {
    params[29] = tokens.join(",");
    try {
      await q.query(INSERT_BATCH_SQL, params);
      return "inserted";
    } catch (err) {
      const e = err as { code?: string; message?: string; constraint?: string };
      if (e?.code === "P0001" && e.message === ABORT_IDEMPOTENCY) return "idempotency_conflict";
      if (e?.code === "P0001" && e.message === ABORT_QUOTA) return "quota_exceeded";
      if (e?.code !== "23505" || e.constraint !== "reply_tokens_pkey" || attempt >= MAX_ATTEMPTS) throw err;
      const taken = await q.query<{ token: string }>(TAKEN_TOKENS_SQL, [params[29]]);
      redrawTaken(tokens, new Set(taken.rows.map((r) => r.token)));
    }
  }
}

/** Draws again every token that is taken or repeats an earlier one of the same batch. */
function redrawTaken(tokens: string[], taken: Set<string>): void {
  const seen = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    while (taken.has(tokens[i]!) || seen.has(tokens[i]!)) tokens[i] = newReplyToken();
    seen.add(tokens[i]!);
  }
}
