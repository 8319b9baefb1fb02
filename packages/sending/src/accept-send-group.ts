import { type ProjectId, newReplyToken } from "@emailsvc/contracts";
import {
  type Batcher,
  createBatcher,
  type Db,
  type NewOutboxRow,
  OUTBOX_INSERT_AVAILABLE,
  type OutboxHandoff,
  outboxAvailableSql,
  senderVerifiedSql,
  suppressedAmongSql,
  timeOrderedUuid,
  timeOrderedUuids,
} from "@emailsvc/db";
import { ABORT_IDEMPOTENCY, ABORT_QUOTA, ABORT_SEND_GATES, IDEMPOTENCY_UPSERT } from "./accept-gates";
import {
  acceptSend,
  type AcceptedActivity,
  type AcceptResult,
  type AcceptSendInput,
  commandRows,
  gateValues,
} from "./accept-send";
import { MONTHLY_QUOTA, quotaUpsert, usagePeriod } from "./quota";
import { type SendLane, sendRequests } from "./send-requests";

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
  SELECT o.id, o.exchange, o.routing_key, o.payload::jsonb, ${outboxAvailableSql("$12::boolean")}
    FROM unnest($10::uuid[], $11::text[], $8::text[], $9::text[]) AS o(id, payload, exchange, routing_key)
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
  const outbox = sharedSendRequests(inputs, accepted).map((request) => ({
    id: timeOrderedUuid(),
    request,
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
    outbox.map((o) => o.request.exchange),
    outbox.map((o) => o.request.routingKey),
    outbox.map((o) => o.id),
    outbox.map((o) => JSON.stringify(o.request.payload)),
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
 * The send requests of a group-committed accept: ONE message per project and lane for all its sends (split at
 * SEND_REQUESTED_MAX_IDS), not one per send. The broker, the outbox relay and the send-worker then handle one
 * message for about twenty sends: publish, confirm, deliver, decode and ack were a third of the pipeline's CPU per
 * email. The worker sends a message's activities independently (as for a batch), so nothing changes for a send but
 * the message it travels in. A message keeps its requests' correlation id only when they share one.
 */
function sharedSendRequests(
  inputs: readonly AcceptSendInput[],
  accepted: AcceptedActivity[][],
): NewOutboxRow[] {
  const groups = new Map<
    string,
    { projectId: ProjectId | null; lane: SendLane; ids: string[]; correlation: Set<string | undefined> }
  >();
  inputs.forEach((input, n) => {
    const lane = input.lane ?? "transactional";
    const key = `${input.projectId}|${lane}`;
    let group = groups.get(key);
    if (!group)
      groups.set(key, (group = { projectId: input.projectId, lane, ids: [], correlation: new Set() }));
    for (const a of accepted[n]!) group.ids.push(a.id);
    group.correlation.add(input.correlationId);
  });
  return [...groups.values()].flatMap(({ projectId, lane, ids, correlation }) => {
    const [only] = correlation;
    return sendRequests(lane, projectId, ids, { correlationId: correlation.size === 1 ? only : undefined });
  });
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
