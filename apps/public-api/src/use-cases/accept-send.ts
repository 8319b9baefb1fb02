import { Exchanges, makeEnvelope, RoutingKeys } from "@emailsvc/contracts";
import { type Db, timeOrderedUuid, timeOrderedUuids } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import type { StoredAttachment } from "../attachments/prepare-attachments";
import {
  ABORT_IDEMPOTENCY,
  ABORT_QUOTA,
  ABORT_SEND_GATES,
  gateCheck,
  gateCtes,
  type GatePlaceholders,
} from "../repos/accept-gates";
import {
  senderAddressForms,
  senderDomain,
  senderVerifiedSql,
  suppressedAmongSql,
} from "../domain/check-sender-verified";
import { newReplyToken } from "../domain/reply-token";
import { MSG_IN_FLIGHT, MSG_KEY_REUSED } from "../idempotency/idempotency.middleware";
import type { StoredResponse } from "../idempotency/idempotency-store";

/** Spec 8: "Emails per month (platform) 500,000". */
export const MONTHLY_QUOTA = 500_000;
export const MSG_QUOTA_EXCEEDED = "Monthly email quota exceeded (500,000 emails per month)";

/** email_messages.source */
export type SendSource = "api" | "internal" | "platform";

export interface AcceptSendInput {
  /** Pre-generated so the response (and the idempotency row holding it) is known before the commit. */
  emailMessageId: string;
  /** null for an internal send without x-project-id. */
  projectId: string | null;
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
  | { kind: "accepted"; emailMessageId: string; activities: AcceptedActivity[]; period: string }
  /** Another request with the same Idempotency-Key already committed: answer with its response. */
  | { kind: "replay"; response: StoredResponse }
  /** `gates` refused (unverified sender or a suppressed address): nothing was written. */
  | { kind: "gates_refused" };

/** 'YYYY-MM' in UTC: the quota's calendar month. */
export function usagePeriod(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}

export async function existingIdempotentResponse(
  db: Db,
  projectId: string,
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
  INSERT INTO outbox_messages (id, exchange, routing_key, payload)
  SELECT $35::uuid, $36, $37, $38::jsonb WHERE $35::uuid IS NOT NULL
)
${gateCheck(SEND_GATES)}`;

export async function acceptSend(db: Db, input: AcceptSendInput): Promise<AcceptResult> {
  // In recipient order: the first recipient's activity carries the message's cc and bcc (send-worker).
  const activityIds = timeOrderedUuids(input.recipients.length);
  const period = usagePeriod();
  const { projectId } = input;
  const withTokens = input.replyTokens && projectId !== null;
  const idem = projectId ? input.idempotency : undefined;
  const counted = input.counted && projectId !== null;
  const outbox = input.enqueue
    ? {
        id: timeOrderedUuid(),
        envelope: makeEnvelope(
          RoutingKeys.emailSendRequested,
          { activityIds },
          { projectId, ...(input.correlationId ? { correlationId: input.correlationId } : {}) },
        ),
      }
    : null;
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
    input.recipients.map((r) => r.toLowerCase()),
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
    input.gates ? senderAddressForms(input.gates.sender) : null,
    input.gates ? senderDomain(input.gates.sender) : null,
    input.gates ? [...new Set(input.gates.addresses.map((a) => a.toLowerCase()))] : null,
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
  return {
    kind: "accepted",
    emailMessageId: input.emailMessageId,
    activities: activityIds.map((id, i) => ({ id, recipient: input.recipients[i]! })),
    period,
  };
}
