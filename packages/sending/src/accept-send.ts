import {
  AppError,
  ErrorCode,
  newReplyToken,
  type ProjectId,
  senderAddressForms,
  senderDomain,
} from "@emailsvc/contracts";
import {
  type Db,
  type NewOutboxRow,
  OUTBOX_INSERT_AVAILABLE,
  type OutboxHandoff,
  type OutboxRecord,
  outboxAvailableSql,
  senderVerifiedSql,
  suppressedAmongSql,
  timeOrderedUuid,
  timeOrderedUuids,
} from "@emailsvc/db";
import {
  ABORT_IDEMPOTENCY,
  ABORT_QUOTA,
  ABORT_SEND_GATES,
  gateCheck,
  gateCtes,
  type GatePlaceholders,
} from "./accept-gates";
import { abortReason, existingIdempotentResponse, isReplyTokenCollision } from "./idempotent-replay";
import { MONTHLY_QUOTA, MSG_QUOTA_EXCEEDED, usagePeriod } from "./quota";
import { type SendLane, sendRequests } from "./send-requests";
import type { StoredAttachment, StoredResponse } from "./types";

/**
 * Where a send came from (email_messages.source): the v1 API, the internal endpoint, the dashboard
 * (`x-source: platform`), a campaign's dispatcher, a shop automation, a scheduled send handed over, or the
 * SMTP relay.
 */
export type SendSource = "api" | "internal" | "platform" | "campaign" | "automation" | "scheduled" | "smtp";

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
  /** Async sends write the send request's outbox row; the synchronous internal send calls the RPC instead. */
  enqueue: boolean;
  /** The lane it is sent in (default `transactional`). */
  lane?: SendLane;
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

/** The send request of an accepted send: all its activities in one message, for the send-worker. */
function sendRequested(input: AcceptSendInput, activityIds: string[]): NewOutboxRow {
  return sendRequests(input.lane ?? "transactional", input.projectId, activityIds, {
    idsPerMessage: Math.max(1, activityIds.length),
    correlationId: input.correlationId,
  })[0]!;
}

/** The values the in-statement sender and suppression check takes (all null: no check). */
export function gateValues(gates: AcceptSendInput["gates"]) {
  return {
    forms: gates ? senderAddressForms(gates.sender) : null,
    domain: gates ? senderDomain(gates.sender) : null,
    addresses: gates ? [...new Set(gates.addresses.map((a) => a.toLowerCase()))] : null,
  };
}

/** The outbox rows of a commit, with their ids, as the relay publishes them. */
export function commandRows(rows: { id: string; request: NewOutboxRow }[]): OutboxRecord[] {
  return rows.map((r) => ({ id: r.id, ...r.request }));
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
  const outbox = input.enqueue ? { id: timeOrderedUuid(), request: sendRequested(input, activityIds) } : null;
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
    outbox?.request.exchange ?? null,
    outbox?.request.routingKey ?? null,
    outbox ? JSON.stringify(outbox.request.payload) : null,
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
