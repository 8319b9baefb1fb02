import type { ConfirmChannel, ConsumeMessage, MessagePropertyHeaders, Options } from "amqplib";
import { parkingQueueName, retryQueueName, type QueueDef, type RetryPolicy } from "@emailsvc/contracts";
import { ATTEMPT_HEADER } from "./codec";
import { publishConfirmed, safeAck } from "./confirm";
import { retryDelayFor } from "./declare-topology";

/** How many times a message was deferred (`deferLater`). */
export const DEFERRALS_HEADER = "x-deferrals";

/** Why a message was parked, in the `x-parked-reason` header. */
export type ParkReason =
  /** Not JSON, not an envelope, or a payload its type's schema refuses. */
  | "invalid-envelope"
  /** A type the queue's consumer does not handle (not in its catalogue entry). */
  | "unknown-type"
  | "permanent-error"
  | "max-attempts";

const MAX_ERROR_CHARS = 2_000;

// The broker's own dead-letter bookkeeping; re-publishing it by hand confuses later dead-lettering.
const BROKER_HEADERS = /^x-(death|first-death-|last-death-)/;

function carriedHeaders(msg: ConsumeMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((msg.properties.headers ?? {}) as MessagePropertyHeaders)) {
    if (!BROKER_HEADERS.test(k)) out[k] = v;
  }
  // Remember where it first came from; retried copies arrive from the default exchange.
  if (out["x-original-exchange"] === undefined) out["x-original-exchange"] = msg.fields.exchange;
  if (out["x-original-routing-key"] === undefined) out["x-original-routing-key"] = msg.fields.routingKey;
  return out;
}

function copyProperties(msg: ConsumeMessage, headers: Record<string, unknown>): Options.Publish {
  const p = msg.properties;
  const out: Options.Publish = { persistent: true, headers };
  if (p.contentType) out.contentType = p.contentType;
  if (p.messageId) out.messageId = p.messageId;
  if (p.type) out.type = p.type;
  if (p.correlationId) out.correlationId = p.correlationId;
  if (p.timestamp) out.timestamp = p.timestamp;
  return out;
}

/** Sends the message to `<queue>.retry.<delay>` with the next attempt number, then acks the original. */
export async function retryLater(
  ch: ConfirmChannel,
  msg: ConsumeMessage,
  queue: QueueDef & { retry: RetryPolicy },
  failedAttempt: number,
  err: unknown,
): Promise<number> {
  const delay = retryDelayFor(queue.retry, failedAttempt);
  const headers: Record<string, unknown> = {
    ...carriedHeaders(msg),
    [ATTEMPT_HEADER]: failedAttempt + 1,
    "x-last-error": errorText(err),
  };
  // It ran: a deferral after this retry starts again from the shortest wait.
  delete headers[DEFERRALS_HEADER];
  return waitInRetryQueue(ch, msg, queue, delay, headers);
}

/** Copies the message to `<queue>.retry.<delay>` (it comes back after `delay`) with `headers`, then acks it. */
async function waitInRetryQueue(
  ch: ConfirmChannel,
  msg: ConsumeMessage,
  queue: QueueDef,
  delay: number,
  headers: Record<string, unknown>,
): Promise<number> {
  await publishConfirmed(
    ch,
    "",
    retryQueueName(queue.name, delay),
    msg.content,
    copyProperties(msg, headers),
  );
  safeAck(ch, msg);
  return delay;
}

/**
 * Sends the message to the retry queue of its next deferral wait, with its attempt number unchanged and its
 * deferral count + 1, then acks the original. Resolves with the wait.
 */
export async function deferLater(
  ch: ConfirmChannel,
  msg: ConsumeMessage,
  queue: QueueDef,
  deferMs: readonly number[],
  attempt: number,
): Promise<number> {
  const before = Number(msg.properties.headers?.[DEFERRALS_HEADER] ?? 0);
  const deferrals = Number.isInteger(before) && before >= 0 ? before + 1 : 1;
  const delay = deferMs[Math.min(deferrals, deferMs.length) - 1]!;
  const headers = { ...carriedHeaders(msg), [ATTEMPT_HEADER]: attempt, [DEFERRALS_HEADER]: deferrals };
  return waitInRetryQueue(ch, msg, queue, delay, headers);
}

/** Sends the message to `<queue>.parking` with why it failed, then acks the original. */
export async function park(
  ch: ConfirmChannel,
  msg: ConsumeMessage,
  queue: QueueDef,
  reason: ParkReason,
  attempt: number,
  error: unknown,
): Promise<void> {
  const headers = {
    ...carriedHeaders(msg),
    [ATTEMPT_HEADER]: attempt,
    "x-parked-reason": reason,
    "x-parked-at": new Date().toISOString(),
    "x-error": errorText(error),
    "x-error-name": error instanceof Error ? error.name : "Error",
    "x-original-queue": queue.name,
  };
  await publishConfirmed(ch, "", parkingQueueName(queue.name), msg.content, copyProperties(msg, headers));
  safeAck(ch, msg);
}

export function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}
