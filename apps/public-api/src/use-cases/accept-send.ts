import { randomUUID } from "node:crypto";
import { Exchanges, makeEnvelope, RoutingKeys } from "@emailsvc/contracts";
import { insertOutboxRows, withTransaction, type Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import type { StoredAttachment } from "../attachments/prepare-attachments";
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
}

export interface AcceptedActivity {
  id: string;
  recipient: string;
}

export type AcceptResult =
  | { kind: "accepted"; emailMessageId: string; activities: AcceptedActivity[] }
  /** Another request with the same Idempotency-Key already committed: answer with its response. */
  | { kind: "replay"; response: StoredResponse };

export class IdempotencyConflict extends Error {}

/** The raw pg connection withTransaction hands out (typed through @emailsvc/db: apps do not import pg). */
type PoolClient = Parameters<Parameters<typeof withTransaction>[1]>[0];

/** 'YYYY-MM' in UTC: the quota's calendar month. */
export function usagePeriod(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}

export async function claimIdempotencyKey(
  client: PoolClient,
  projectId: string,
  input: NonNullable<AcceptSendInput["idempotency"]>,
  emailMessageId: string,
) {
  // A row older than the 24 h window is taken over; a fresh one (committed, or being inserted by a concurrent
  // transaction, which this statement waits for) makes the insert do nothing.
  const res = await client.query(
    `INSERT INTO idempotency_keys (project_id, key, fingerprint, response_status, response_body, email_message_id)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (project_id, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
           response_body = EXCLUDED.response_body, email_message_id = EXCLUDED.email_message_id, created_at = now()
       WHERE idempotency_keys.created_at < now() - interval '24 hours'
     RETURNING 1`,
    [
      projectId,
      input.key,
      input.fingerprint,
      input.response.status,
      JSON.stringify(input.response.body),
      emailMessageId,
    ],
  );
  if (res.rowCount === 0) throw new IdempotencyConflict();
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

/**
 * Conditional increment of the month's usage plus projects.total_sent, in one statement. A send that would
 * pass the quota changes nothing (no usage row returned) and is refused whole. Both rows are hot (every live
 * send of the project locks them until COMMIT), so this runs last in the transaction to keep the lock short.
 */
export async function countUsage(client: PoolClient, projectId: string, n: number): Promise<void> {
  const res = await client.query<{ counted: boolean }>(
    `WITH usage AS (
       INSERT INTO project_usage AS u (project_id, period, live_sent) VALUES ($1, $2, $3)
       ON CONFLICT (project_id, period) DO UPDATE SET live_sent = u.live_sent + EXCLUDED.live_sent
         WHERE u.live_sent + EXCLUDED.live_sent <= $4
       RETURNING live_sent
     ), total AS (
       UPDATE projects SET total_sent = total_sent + $3 WHERE id = $1 AND EXISTS (SELECT 1 FROM usage) RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM usage) AND EXISTS (SELECT 1 FROM total) AS counted`,
    [projectId, usagePeriod(), n, MONTHLY_QUOTA],
  );
  if (!res.rows[0]?.counted || n > MONTHLY_QUOTA)
    throw new AppError(ErrorCode.QUOTA_EXCEEDED, MSG_QUOTA_EXCEEDED);
}

/** Reply tokens are the table's primary key: a (very unlikely) collision is simply drawn again. */
export async function insertReplyTokens(
  client: PoolClient,
  projectId: string,
  activityIds: string[],
): Promise<string[]> {
  const tokens = activityIds.map(() => newReplyToken());
  let pending = activityIds.map((_, i) => i);
  for (let round = 0; pending.length > 0; round++) {
    if (round >= 5) throw new Error("could not draw unique reply tokens");
    const res = await client.query<{ token: string }>(
      `INSERT INTO reply_tokens (token, project_id, activity_id)
       SELECT t, $1, a FROM unnest($2::text[], $3::uuid[]) AS x(t, a)
       ON CONFLICT (token) DO NOTHING RETURNING token`,
      [projectId, pending.map((i) => tokens[i]), pending.map((i) => activityIds[i])],
    );
    const inserted = new Set(res.rows.map((r) => r.token));
    pending = pending.filter((i) => !inserted.has(tokens[i]!));
    for (const i of pending) tokens[i] = newReplyToken();
  }
  return tokens;
}

/**
 * The accept transaction of docs/send-pipeline.md, all in raw SQL on one pooled connection: idempotency row,
 * quota increment and total_sent (live), email_messages, reply_tokens, activities (`queued`) and the
 * `email.send-requested` outbox row. Nothing is written unless everything is. The caller kicks the outbox relay
 * after it returns.
 */
export async function acceptSend(db: Db, input: AcceptSendInput): Promise<AcceptResult> {
  const activityIds = input.recipients.map(() => randomUUID());
  const { projectId } = input;
  try {
    await withTransaction(db.pool, async (client) => {
      if (input.idempotency && projectId)
        await claimIdempotencyKey(client, projectId, input.idempotency, input.emailMessageId);

      await client.query(
        `INSERT INTO email_messages (id, project_id, is_test, source, email_type, from_email, from_name, subject, html, text,
                                     cc, bcc, headers, attachments, template_id, campaign_id, automation_run_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
        [
          input.emailMessageId,
          projectId,
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
        ],
      );

      if (input.scheduled) {
        await client.query(
          `INSERT INTO scheduled_sends (id, project_id, status, scheduled_for, timezone, local_time, request, updated_at)
           VALUES ($1, $2, 'scheduled', $3, $4, $5, $6, now())`,
          [
            input.scheduled.id,
            projectId,
            input.scheduled.scheduledFor,
            input.scheduled.timezone,
            input.scheduled.localTime,
            JSON.stringify(input.scheduled.request),
          ],
        );
      }
      const tokens =
        input.replyTokens && projectId
          ? await insertReplyTokens(client, projectId, activityIds)
          : activityIds.map(() => null);
      await client.query(
        `INSERT INTO activities (id, project_id, email_message_id, campaign_id, is_test, email_type, recipient, status, reply_token, scheduled_send_id)
         SELECT a, $1, $2, $3, $4, $5, r, $9, t, $10 FROM unnest($6::uuid[], $7::text[], $8::text[]) AS x(a, r, t)`,
        [
          projectId,
          input.emailMessageId,
          input.campaignId,
          input.isTest,
          input.emailType,
          activityIds,
          input.recipients.map((r) => r.toLowerCase()),
          tokens,
          input.scheduled ? "scheduled" : "queued",
          input.scheduled?.id ?? null,
        ],
      );

      if (input.enqueue) {
        const envelope = makeEnvelope(
          RoutingKeys.emailSendRequested,
          { activityIds },
          { projectId, ...(input.correlationId ? { correlationId: input.correlationId } : {}) },
        );
        await insertOutboxRows(client, [
          {
            exchange: Exchanges.emailCommands,
            routingKey: RoutingKeys.emailSendRequested,
            payload: envelope,
          },
        ]);
      }
      if (input.counted && projectId) await countUsage(client, projectId, input.recipients.length);
    });
  } catch (err) {
    if (err instanceof IdempotencyConflict && input.idempotency && projectId) {
      return existingIdempotentResponse(db, projectId, input.idempotency.key, input.idempotency.fingerprint);
    }
    throw err;
  }
  return {
    kind: "accepted",
    emailMessageId: input.emailMessageId,
    activities: activityIds.map((id, i) => ({ id, recipient: input.recipients[i]! })),
  };
}
