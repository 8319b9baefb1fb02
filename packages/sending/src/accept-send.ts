import {
  Exchanges,
  makeEnvelope,
  RoutingKeys,
  senderAddressForms,
  senderDomain,
  sendRequestedPayloads,
  type ProjectId,
} from "@emailsvc/contracts";
import {
  type Batcher,
  createBatcher,
  type Db,
  senderVerifiedSql,
  suppressedAmongSql,
  timeOrderedUuid,
  timeOrderedUuids,
  OUTBOX_INSERT_AVAILABLE,
  type OutboxHandoff,
  type OutboxRecord,
  outboxAvailableSql,
} from "@emailsvc/db";
import { AppError, ErrorCode, MSG_IN_FLIGHT, MSG_KEY_REUSED, newReplyToken } from "@emailsvc/contracts";
import {
  ABORT_IDEMPOTENCY,
  ABORT_QUOTA,
  ABORT_SEND_GATES,
  gateCheck,
  gateCtes,
  type GatePlaceholders,
  IDEMPOTENCY_UPSERT,
} from "./accept-gates";
import { MONTHLY_QUOTA, MSG_QUOTA_EXCEEDED, quotaUpsert, usagePeriod } from "./quota";
import type { StoredAttachment, StoredResponse } from "./types";

/**
 * Where a send came from (email_messages.source): the v1 API, the internal endpoint, the dashboard
 * (`x-source: platform`), a campaign's dispatcher, a shop automation, or a scheduled send handed over.
 */
export type SendSource = "api" | "internal" | "platform" | "campaign" | "automation" | "scheduled";

export interface AcceptSendInput {
  /** Pre-generated so the response (and the idempotency row holding it) is known before the commit. */
  emailMessageId: string;
  /** null for an internal send without x-project-id. */
  projectId: ProjectId | null;
  isTest: boolean;
  /** Live sends of a project count: project_usage (quota) and projects.total_sent. */
  counted: boolean;
  source: SendSource;
  emailType: string;
  fromEmail: string;
  fromName: string | null;
  subject: string;
  html: string;
  text: string | null;
  cc: readonly string[];
  bcc: readonly string[];
  headers: Record<string, string> | null;
  attachments: readonly StoredAttachment[];
  templateId: string | null;
  campaignId: string | null;
  automationRunId: string | null;
  /** One activity each; already without suppressed addresses. */
  recipients: readonly string[];
  /** Automatic Reply-To token per activity (spec 4.11). */
  replyTokens: boolean;
  /** Async sends write the `email.send-requested` outbox row; the synchronous internal send calls the RPC instead. */
  enqueue: boolean;
  /** DB backstop of Idempotency-Key: the row holds the response so a duplicate can replay it. */
  idempotency?: { key: string; fingerprint: string; response: StoredResponse };
  correlationId?: string;
  /** Scheduled send (spec 4.5): activities wait as `scheduled` until the scheduler hands them over. */
  scheduled?: { id: string; scheduledFor: Date; timezone: string; localTime: string; request: unknown };
  /**
   * The sender check and suppression filter, made inside the statement instead of in a round trip before it:
   * the sender must be verified and none of `addresses` (every to/cc/bcc) suppressed, or nothing is written and
   * the result is `gates_refused`; the caller then makes the checks on their own, which tell it why.
   */
  gates?: { sender: string; addresses: readonly string[] };
}

export interface AcceptedActivity {
  id: string;
  recipient: string;
}

export type AcceptResult =
  /** `period`: the quota month the send was counted in. */
  | {
      kind: "accepted";
      emailMessageId: string;
      activities: AcceptedActivity[];
      period: string;
      /** Its outbox row went straight to the running relay (`OutboxHandoff`): no kick is needed. */
      outboxHanded?: boolean;
    }
  /** Another request with the same Idempotency-Key already committed: answer with its response. */
  | { kind: "replay"; response: StoredResponse }
  /** `gates` refused (unverified sender or a suppressed address): nothing was written. */
  | { kind: "gates_refused" };

export async function existingIdempotentResponse(
  db: Db,
  projectId: ProjectId,
  key: string,
  fingerprint: string,
): Promise<AcceptResult> {
  const { rows } = await db.pool.query<{
    fingerprint: string;
    response_status: number | null;
    response_body: unknown;
  }>(
    "SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE project_id = $1 AND key = $2",
    [projectId, key],
  );
  const row = rows[0];
  if (row && row.fingerprint !== fingerprint)
    throw new AppError(ErrorCode.IDEMPOTENCY_KEY_REUSED, MSG_KEY_REUSED);
  if (row?.response_status != null)
    return { kind: "replay", response: { status: row.response_status, body: row.response_body } };
  throw new AppError(ErrorCode.CONFLICT, MSG_IN_FLIGHT);
}

function abortReason(err: unknown): string | null {
  const e = err as { code?: string; message?: string };
  return e?.code === "P0001" ? (e.message ?? null) : null;
}

/** A reply token drawn twice (the table's primary key): the statement is tried again with fresh tokens. */
function isReplyTokenCollision(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === "23505" && e.constraint === "reply_tokens_pkey";
}

/**
 * The accept write of docs/send-pipeline.md as ONE statement (data-modifying CTEs), so a send costs one round
 * trip instead of a BEGIN … COMMIT conversation: idempotency row, quota increment and total_sent (live),
 * email_messages, scheduled_sends, activities (`queued`), reply_tokens and the `email.send-requested` outbox
 * row. A statement is atomic: when a gate fails (the sender check and suppressions when `gates` are given, then
 * key already taken, quota reached) its final SELECT raises and nothing at all is written. The caller kicks the
 * outbox relay after it returns.
 */
const SENDER = senderVerifiedSql("$1", "$39::text[]", "$40::text");
const SEND_GATES: GatePlaceholders = {
  project: "$1::uuid",
  key: "$20::text",
  fingerprint: "$21::text",
  status: "$22::int",
  body: "$23::jsonb",
  messageId: "$2::uuid",
  period: "$24::text",
  count: "$25::int",
  counts: "$26::boolean",
  limit: "$27::int",
  sendGate: `$39::text[] IS NULL OR ((${SENDER.profile} OR ${SENDER.domain})
    AND NOT EXISTS (SELECT 1 ${suppressedAmongSql("$1", "$41::text[]")}))`,
};

const ACCEPT_SQL = `
WITH ${gateCtes(SEND_GATES)}, msg AS (
  INSERT INTO email_messages (id, project_id, is_test, source, email_type, from_email, from_name, subject, html, text,
                              cc, bcc, headers, attachments, template_id, campaign_id, automation_run_id)
  VALUES ($2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14::jsonb, $15, $16, $17)
), sched AS (
  INSERT INTO scheduled_sends (id, project_id, status, scheduled_for, timezone, local_time, request, updated_at)
  SELECT $28::uuid, $1, 'scheduled', $29, $30, $31, $32::jsonb, now() WHERE $28::uuid IS NOT NULL
), act AS (
  INSERT INTO activities (id, project_id, email_message_id, campaign_id, is_test, email_type, recipient, status, reply_token, scheduled_send_id)
  SELECT a, $1, $2, $16, $3, $5, r, $33, t, $28::uuid FROM unnest($18::uuid[], $19::text[], $34::text[]) AS x(a, r, t)
), tok AS (
  INSERT INTO reply_tokens (token, project_id, activity_id)
  SELECT t, $1, a FROM unnest($18::uuid[], $34::text[]) AS x(a, t) WHERE t IS NOT NULL
), outbox AS (
  ${OUTBOX_INSERT_AVAILABLE}
  SELECT $35::uuid, $36, $37, $38::jsonb, ${outboxAvailableSql("$42::boolean")} WHERE $35::uuid IS NOT NULL
)
${gateCheck(SEND_GATES)}`;

/** The `email.send-requested` command of an accepted send: its activities, for the send-worker. */
function sendRequested(input: AcceptSendInput, activityIds: string[]) {
  return makeEnvelope(
    RoutingKeys.emailSendRequested,
    { activityIds },
    { projectId: input.projectId, ...(input.correlationId ? { correlationId: input.correlationId } : {}) },
  );
}

/** The values the in-statement sender and suppression check takes (all null: no check). */
function gateValues(gates: AcceptSendInput["gates"]) {
  return {
    forms: gates ? senderAddressForms(gates.sender) : null,
    domain: gates ? senderDomain(gates.sender) : null,
    addresses: gates ? [...new Set(gates.addresses.map((a) => a.toLowerCase()))] : null,
  };
}

/** The outbox rows of a commit, as the relay publishes them. */
function commandRows(rows: { id: string; envelope: unknown }[]): OutboxRecord[] {
  return rows.map((r) => ({
    id: r.id,
    exchange: Exchanges.emailCommands,
    routingKey: RoutingKeys.emailSendRequested,
    payload: r.envelope,
  }));
}

/**
 * `handoff`: the running relay of the caller's service, if any; an enqueued send's outbox row is then written
 * held for it and handed over after the commit (`outboxHanded`), instead of waiting for a kick and a lease.
 */
export async function acceptSend(
  db: Db,
  input: AcceptSendInput,
  handoff?: OutboxHandoff,
): Promise<AcceptResult> {
  // In recipient order: the first recipient's activity carries the message's cc and bcc (send-worker).
  const activityIds = timeOrderedUuids(input.recipients.length);
  const period = usagePeriod();
  const { projectId } = input;
  const withTokens = input.replyTokens && projectId !== null;
  const idem = projectId ? input.idempotency : undefined;
  const counted = input.counted && projectId !== null;
  const outbox = input.enqueue
    ? { id: timeOrderedUuid(), envelope: sendRequested(input, activityIds) }
    : null;
  const gate = gateValues(input.gates);
  const take = outbox ? (handoff?.() ?? null) : null;
  const params = (tokens: (string | null)[]) => [
    projectId,
    input.emailMessageId,
    input.isTest,
    input.source,
    input.emailType,
    input.fromEmail,
    input.fromName,
    input.subject,
    input.html,
    input.text,
    input.cc,
    input.bcc,
    input.headers ? JSON.stringify(input.headers) : null,
    input.attachments.length ? JSON.stringify(input.attachments) : null,
    input.templateId,
    input.campaignId,
    input.automationRunId,
    activityIds,
    // as the client wrote them (RFC 5321 2.4: a local part's case is the receiver's to interpret); matching
    // (suppressions, notifications) compares lower-cased forms
    input.recipients,
    idem?.key ?? null,
    idem?.fingerprint ?? null,
    idem?.response.status ?? null,
    idem ? JSON.stringify(idem.response.body) : null,
    period,
    input.recipients.length,
    counted,
    MONTHLY_QUOTA,
    input.scheduled?.id ?? null,
    input.scheduled?.scheduledFor ?? null,
    input.scheduled?.timezone ?? null,
    input.scheduled?.localTime ?? null,
    input.scheduled ? JSON.stringify(input.scheduled.request) : null,
    input.scheduled ? "scheduled" : "queued",
    tokens,
    outbox?.id ?? null,
    Exchanges.emailCommands,
    RoutingKeys.emailSendRequested,
    outbox ? JSON.stringify(outbox.envelope) : null,
    gate.forms,
    gate.domain,
    gate.addresses,
    take !== null,
  ];
  if (counted && input.recipients.length > MONTHLY_QUOTA)
    throw new AppError(ErrorCode.QUOTA_EXCEEDED, MSG_QUOTA_EXCEEDED);
  for (let attempt = 1; ; attempt++) {
    const tokens = activityIds.map(() => (withTokens ? newReplyToken() : null));
    try {
      await db.pool.query(ACCEPT_SQL, params(tokens));
      break;
    } catch (err) {
      if (isReplyTokenCollision(err) && attempt < 5) continue;
      const reason = abortReason(err);
      if (reason === ABORT_SEND_GATES) return { kind: "gates_refused" };
      if (reason === ABORT_QUOTA) throw new AppError(ErrorCode.QUOTA_EXCEEDED, MSG_QUOTA_EXCEEDED);
      if (reason === ABORT_IDEMPOTENCY && idem && projectId)
        return existingIdempotentResponse(db, projectId, idem.key, idem.fingerprint);
      throw err;
    }
  }
  if (take && outbox) take(commandRows([outbox]));
  return {
    kind: "accepted",
    emailMessageId: input.emailMessageId,
    activities: activityIds.map((id, i) => ({ id, recipient: input.recipients[i]! })),
    period,
    ...(take ? { outboxHanded: true } : {}),
  };
}

/**
 * Several v1 accepts in ONE statement: the concurrent requests of a busy public-api share a round trip, a
 * commit (a WAL flush) and the statement's fixed costs, instead of paying them once each (group commit, as the
 * send-worker does for its statements). Same gates as ACCEPT_SQL, over all the items: every item's sender and
 * suppression check, every idempotency key, and each project's quota for the sum of its items. When any gate
 * refuses, or anything else fails (two items with one key, a reply-token collision), the statement writes
 * nothing, and the batcher runs each item again alone through `acceptSend`, which answers it exactly as before.
 */
const ITEM_SENDER = senderVerifiedSql("i.project_id", "i.sender_forms", "i.sender_domain");
const ACCEPT_MANY_SQL = `
WITH i AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
    n int, project_id uuid, message_id uuid, is_test boolean, source text, email_type text, from_email text,
    from_name text, subject text, html text, text text, cc text[], bcc text[], headers jsonb, attachments jsonb,
    template_id uuid, campaign_id uuid, automation_run_id uuid, idem_key text, idem_fingerprint text,
    idem_status int, idem_body jsonb, count int, counts boolean, sender_forms text[], sender_domain text,
    gate_addresses text[])
), a AS (
  SELECT * FROM unnest($2::uuid[], $3::int[], $4::text[], $5::text[]) AS y(id, n, recipient, token)
), gate AS (
  SELECT coalesce(bool_and(i.sender_forms IS NULL OR ((${ITEM_SENDER.profile} OR ${ITEM_SENDER.domain})
    AND NOT EXISTS (SELECT 1 ${suppressedAmongSql("i.project_id", "i.gate_addresses")}))), true) AS ok FROM i
), idem AS (
  INSERT INTO idempotency_keys (project_id, key, fingerprint, response_status, response_body, email_message_id)
  SELECT project_id, idem_key, idem_fingerprint, idem_status, idem_body, message_id FROM i WHERE idem_key IS NOT NULL
  ${IDEMPOTENCY_UPSERT}
), per_project AS (
  SELECT project_id, sum(count)::int AS count FROM i WHERE counts GROUP BY project_id
), usage AS (
  INSERT INTO project_usage AS u (project_id, period, live_sent) SELECT project_id, $6, count FROM per_project
  ${quotaUpsert("$7")}
), total AS (
  UPDATE projects p SET total_sent = p.total_sent + pp.count FROM per_project pp WHERE p.id = pp.project_id RETURNING 1
), msg AS (
  INSERT INTO email_messages (id, project_id, is_test, source, email_type, from_email, from_name, subject, html, text,
                              cc, bcc, headers, attachments, template_id, campaign_id, automation_run_id)
  SELECT message_id, project_id, is_test, source, email_type, from_email, from_name, subject, html, text,
         coalesce(cc, '{}'), coalesce(bcc, '{}'), headers, attachments, template_id, campaign_id, automation_run_id
    FROM i
), act AS (
  INSERT INTO activities (id, project_id, email_message_id, campaign_id, is_test, email_type, recipient, status, reply_token)
  SELECT a.id, i.project_id, i.message_id, i.campaign_id, i.is_test, i.email_type, a.recipient, 'queued', a.token
    FROM a JOIN i ON i.n = a.n
), tok AS (
  INSERT INTO reply_tokens (token, project_id, activity_id)
  SELECT a.token, i.project_id, a.id FROM a JOIN i ON i.n = a.n WHERE a.token IS NOT NULL
), outbox AS (
  ${OUTBOX_INSERT_AVAILABLE}
  SELECT o.id, $8, $9, o.payload::jsonb, ${outboxAvailableSql("$12::boolean")}
    FROM unnest($10::uuid[], $11::text[]) AS o(id, payload)
)
SELECT CASE
  WHEN NOT (SELECT ok FROM gate) THEN svc_abort('${ABORT_SEND_GATES}')
  WHEN (SELECT count(*) FROM idem) < (SELECT count(*) FROM i WHERE idem_key IS NOT NULL) THEN svc_abort('${ABORT_IDEMPOTENCY}')
  WHEN (SELECT count(*) FROM usage) < (SELECT count(*) FROM per_project) THEN svc_abort('${ABORT_QUOTA}')
  ELSE true END AS ok`;

/** The shape `acceptSendGroup` takes together: an immediate, queued send of a project (the v1 single sends). */
function batchable(input: AcceptSendInput): boolean {
  return input.projectId !== null && input.enqueue && !input.scheduled;
}

/** Runs `inputs` as one statement; throws when any of them was refused (the caller then runs them alone). */
export async function acceptSendGroup(
  db: Db,
  inputs: readonly AcceptSendInput[],
  handoff?: OutboxHandoff,
): Promise<AcceptResult[]> {
  const period = usagePeriod();
  const ids: string[] = [];
  const ns: number[] = [];
  const recipients: string[] = [];
  const tokens: (string | null)[] = [];
  const accepted: AcceptedActivity[][] = [];
  const items = inputs.map((input, n) => {
    const activityIds = timeOrderedUuids(input.recipients.length);
    accepted.push(activityIds.map((id, k) => ({ id, recipient: input.recipients[k]! })));
    activityIds.forEach((id, k) => {
      ids.push(id);
      ns.push(n);
      recipients.push(input.recipients[k]!);
      tokens.push(input.replyTokens ? newReplyToken() : null);
    });
    const idem = input.idempotency;
    const gate = gateValues(input.gates);
    return {
      n,
      project_id: input.projectId,
      message_id: input.emailMessageId,
      is_test: input.isTest,
      source: input.source,
      email_type: input.emailType,
      from_email: input.fromEmail,
      from_name: input.fromName,
      subject: input.subject,
      html: input.html,
      text: input.text,
      cc: input.cc,
      bcc: input.bcc,
      headers: input.headers,
      attachments: input.attachments.length ? input.attachments : null,
      template_id: input.templateId,
      campaign_id: input.campaignId,
      automation_run_id: input.automationRunId,
      idem_key: idem?.key ?? null,
      idem_fingerprint: idem?.fingerprint ?? null,
      idem_status: idem?.response.status ?? null,
      idem_body: idem ? idem.response.body : null,
      count: input.recipients.length,
      counts: input.counted,
      sender_forms: gate.forms,
      sender_domain: gate.domain,
      gate_addresses: gate.addresses,
    };
  });
  const outbox = sharedSendRequests(inputs, accepted).map((envelope) => ({
    id: timeOrderedUuid(),
    envelope,
  }));
  const take = handoff?.() ?? null;
  await db.pool.query(ACCEPT_MANY_SQL, [
    JSON.stringify(items),
    ids,
    ns,
    recipients,
    tokens,
    period,
    MONTHLY_QUOTA,
    Exchanges.emailCommands,
    RoutingKeys.emailSendRequested,
    outbox.map((o) => o.id),
    outbox.map((o) => JSON.stringify(o.envelope)),
    take !== null,
  ]);
  if (take) take(commandRows(outbox));
  return inputs.map((input, n) => ({
    kind: "accepted",
    emailMessageId: input.emailMessageId,
    activities: accepted[n]!,
    period,
    ...(take ? { outboxHanded: true } : {}),
  }));
}

/**
 * The email.send-requested commands of a group-committed accept: ONE message per project for all its sends
 * (split at SEND_REQUESTED_MAX_IDS), not one per send. The broker, the outbox relay and the send-worker then
 * handle one message for about twenty sends: publish, confirm, deliver, decode and ack were a third of the
 * pipeline's CPU per email. The worker sends a message's activities independently (as for a batch), so nothing changes
 * for a send but the message it travels in. A message keeps its requests' correlation id only when they share
 * one.
 */
function sharedSendRequests(inputs: readonly AcceptSendInput[], accepted: AcceptedActivity[][]) {
  const byProject = new Map<ProjectId | null, { ids: string[]; correlation: Set<string | undefined> }>();
  inputs.forEach((input, n) => {
    let group = byProject.get(input.projectId);
    if (!group) byProject.set(input.projectId, (group = { ids: [], correlation: new Set() }));
    for (const a of accepted[n]!) group.ids.push(a.id);
    group.correlation.add(input.correlationId);
  });
  const envelopes: ReturnType<typeof makeEnvelope>[] = [];
  for (const [projectId, { ids, correlation }] of byProject) {
    const [only] = correlation;
    const correlationId = correlation.size === 1 ? only : undefined;
    for (const payload of sendRequestedPayloads(ids))
      envelopes.push(
        makeEnvelope(RoutingKeys.emailSendRequested, payload, {
          projectId,
          ...(correlationId ? { correlationId } : {}),
        }),
      );
  }
  return envelopes;
}

/**
 * Group commit of the v1 accepts: those that arrive in one event-loop turn, or while statements are in flight, go
 * together in one statement (`acceptSendGroup`). When that statement refuses (one item's gate, key or quota), every item
 * runs again alone through `acceptSend`, all at once, and each gets its own answer or error; one alone, or
 * another shape, runs alone from the start.
 */
export function createAcceptBatcher(
  db: Db,
  opts: { handoff?: OutboxHandoff } = {},
): Batcher<AcceptSendInput, AcceptResult> {
  const batcher = createBatcher<AcceptSendInput, PromiseSettledResult<AcceptResult>>({
    run: async (inputs) => {
      if (inputs.length > 1 && inputs.every(batchable)) {
        try {
          return (await acceptSendGroup(db, inputs, opts.handoff)).map((value) => ({
            status: "fulfilled",
            value,
          }));
        } catch {
          // nothing was written: each item alone says why
        }
      }
      return Promise.allSettled(inputs.map((input) => acceptSend(db, input, opts.handoff)));
    },
    maxInFlight: 2,
    // The requests parsed in one poll phase go together: with a free slot, the first used to go alone, and half
    // the statements (and email.send-requested messages) carried a single send.
    gatherTurn: true,
  });
  return {
    async submit(input) {
      const result = await batcher.submit(input);
      if (result.status === "rejected") throw result.reason;
      return result.value;
    },
  };
}
