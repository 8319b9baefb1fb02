import type { IncomingMessage, ServerResponse } from "node:http";
import { type Db, dropHeldOutboxMessage, releaseHeldOutboxMessage } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { createSnsReceiver, type SnsAnswer, snsFastPath, SnsPayloadError } from "@emailsvc/provider";
import { readReceivedNotification, storableText } from "./domain/ses-received";
import { notificationOutcome, storeNotification } from "./notifications.repo";
import { type ProcessDeps, processNotification, type ProcessResult } from "./process-notification";

export interface InboundProviderDeps {
  db: Db;
  verify(message: Record<string, unknown>): Promise<void>;
  logger: Logger;
  /** The relay publishes the stored outbox row at once instead of at its next poll. */
  kickOutbox(): void;
  confirmSubscription?: (url: string) => Promise<void>;
  /** What processes a notification: the consumer's own use case and dependencies. */
  process: ProcessDeps;
  /**
   * How long the answer may wait for the processing (INBOUND_SYNC_BUDGET_MS, well inside SNS's 15 s HTTP timeout);
   * 0: never wait, answer `queued` and let the consumer process it.
   */
  syncBudgetMs: number;
  /**
   * At most this many notifications processed in answers at once (INBOUND_SYNC_MAX_IN_FLIGHT): past it the
   * receiver is behind, and waiting would only make every answer slower; it answers `queued` at once instead
   * (reason `busy`) and the consumer takes the notification.
   */
  syncMaxInFlight?: number;
}

/**
 * The held outbox row is due after twice the budget: if this process dies, the consumer takes the notification
 * over then. Should the receiver still be working on it (it overran its budget twice over), both finish it and
 * the store keeps one: same reply id, same attachment keys, the dedupe key, the first outcome kept.
 */
const HOLD_FACTOR = 2;

/**
 * POST /api/inbound/provider (spec 4.9) through the shared SNS receiver: signature, certificate host, topic
 * allowlist, SubscriptionConfirmation only to AWS SNS hosts, UnsubscribeConfirmation logged.
 *
 * A Notification is first stored with an outbox row held back past the time budget (nothing acknowledged is lost:
 * if this process dies, the consumer finishes it once the hold ends). Then it is processed here before the answer:
 * S3, parse, thread, attachments, the stored reply and its `email.inbound` outbox row (the webhook stays
 * asynchronous). The held row is then dropped. Answers:
 *   200 { success: true, messageId, threadId, projectId, status: "processed" }   stored and threaded
 *   200 { …, threadId: null, projectId: null, status: "unmatched" }               stored, matched no send
 *   200 { …, status: "duplicate" }                                                 the same reply was stored before
 *   200 { …, status: "refused" }                                                   over the size limit: bounced
 *   400 { success: false, error: "Invalid inbound message: unparseable message: …" } (or another bucket, no object)
 *   200 { …, threadId: null, projectId: null, status: "queued" }   not finished within the budget, S3 or the
 *        database failed for now, or INBOUND_SYNC_MAX_IN_FLIGHT answers already wait on their processing: the
 *        consumer finishes it (the only case where a stored reply's ids are null)
 * A notification already stored (SNS redelivered it) answers what became of it, in the same words.
 * 400: not JSON, not a Received notification, no S3 object or inline content; 403 signature; 500 not stored.
 */
export function inboundProviderHandler(deps: InboundProviderDeps): (raw: string) => Promise<SnsAnswer> {
  let inFlight = 0;
  return createSnsReceiver({
    verify: deps.verify,
    logger: deps.logger,
    ...(deps.confirmSubscription ? { confirmSubscription: deps.confirmSubscription } : {}),
    async onUnsubscribeConfirmation(msg) {
      // The topic no longer delivers here: say so loudly, replies would stop arriving.
      deps.logger.warn({ topicArn: msg.TopicArn }, "inbound.unsubscribed");
    },
    async onNotification(msg) {
      const n = readReceivedNotification(msg.Message);
      if (typeof n === "string") throw new SnsPayloadError(`Invalid inbound notification: ${n}`);
      // MessageId keys a unique index, whose entries hold a few KB at most (SNS's own are UUIDs)
      if (!storableText(msg.MessageId) || msg.MessageId.length > 255)
        throw new SnsPayloadError(
          "Invalid inbound notification: MessageId must be at most 255 characters, without NUL or unpaired surrogates",
        );
      if (!storableText(msg.TopicArn))
        throw new SnsPayloadError(
          "Invalid inbound notification: TopicArn contains a NUL character or an unpaired surrogate",
        );
      const busy = inFlight >= (deps.syncMaxInFlight ?? Infinity);
      const budget = busy ? 0 : deps.syncBudgetMs;
      const stored = await storeNotification(
        deps.db,
        msg.MessageId,
        msg.TopicArn,
        n,
        budget > 0 ? budget * HOLD_FACTOR : 0,
      );
      const queued = { messageId: n.sesMessageId, threadId: null, projectId: null, status: "queued" };
      if (stored.inserted) {
        if (budget <= 0) {
          deps.kickOutbox();
          deps.process.counters?.deferred?.inc({ reason: busy ? "busy" : "disabled" });
          return queued;
        }
        inFlight++;
        const r = await processWithin(deps, stored.id, stored.outboxId, budget).finally(() => inFlight--);
        if (typeof r === "string") {
          deps.process.counters?.deferred?.inc({ reason: r });
          deps.logger.warn(
            { notificationId: stored.id, sesMessageId: n.sesMessageId, reason: r, budgetMs: budget },
            "inbound.deferred: answered queued, the consumer finishes it",
          );
          return queued;
        }
        if (r.outcome === "duplicate" || r.outcome === "already-done" || r.outcome === "missing")
          return again(deps, msg.MessageId, n.sesMessageId, false);
        return answer(n.sesMessageId, r.outcome, r.projectId, r.threadId, r.reason);
      }
      return again(deps, msg.MessageId, n.sesMessageId, budget > 0);
    },
  });
}

/**
 * A notification stored before: what became of it, as the first answer would have said. One still unfinished
 * (SNS redelivers because the first attempt's answer was lost, or this process died before finishing it) is
 * processed now, within the budget, rather than left to wait for its held outbox row.
 */
async function again(
  deps: InboundProviderDeps,
  snsMessageId: string,
  sesMessageId: string,
  finish: boolean,
): Promise<Record<string, unknown>> {
  const known = await notificationOutcome(deps.db, snsMessageId);
  if (!known) return { messageId: sesMessageId, threadId: null, projectId: null, status: "queued" };
  if (known.status === "received" && finish) {
    const r = await processWithin(deps, known.id, null, deps.syncBudgetMs);
    if (typeof r !== "string") return again(deps, snsMessageId, sesMessageId, false);
  }
  const status = known.status === "received" ? "queued" : known.status;
  return answer(known.sesMessageId, status, known.projectId, known.threadId, known.error);
}

function answer(
  messageId: string,
  status: string,
  projectId: string | null,
  threadId: string | null,
  reason: string | null,
): Record<string, unknown> {
  // spec 4.9: 400 for an unparseable message (and for one this receiver refused to read)
  if (status === "failed") throw new SnsPayloadError(`Invalid inbound message: ${reason ?? "unreadable"}`);
  if (status === "processed" && projectId === null) status = "unmatched";
  return { messageId, threadId, projectId, status };
}

/**
 * Processes the stored notification, waiting at most `budgetMs`. The work goes on after the budget; whatever it
 * ends in, its held outbox row is then dropped (done) or made due at once (S3 had no object yet, or S3 or the
 * database failed: the consumer retries it with its delays). Returns the result, or why the answer cannot wait.
 */
async function processWithin(
  deps: InboundProviderDeps,
  notificationId: string,
  /** the held outbox row (unknown on a redelivery: its consumer run then finds the work done) */
  outboxId: string | null,
  budgetMs: number,
): Promise<ProcessResult | "budget" | "error" | "no_object"> {
  const release = async () => {
    if (outboxId === null) return;
    // the row is still held when this fails: it becomes due when the hold ends
    await releaseHeldOutboxMessage(deps.db, outboxId).then(
      () => deps.kickOutbox(),
      () => undefined,
    );
  };
  const work: Promise<ProcessResult | "error" | "no_object"> = processNotification(
    deps.process,
    notificationId,
  ).then(
    async (r) => {
      if (r.outcome === "retry") {
        await release();
        return "no_object" as const;
      }
      if (outboxId !== null) await dropHeldOutboxMessage(deps.db, outboxId);
      return r;
    },
    async (err: unknown) => {
      deps.logger.warn(
        { err, notificationId },
        "inbound.process failed in the receiver; the consumer retries it",
      );
      await release();
      return "error" as const;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"budget">((resolve) => {
    timer = setTimeout(() => resolve("budget"), budgetMs);
  });
  try {
    return await Promise.race([work.catch(() => "error" as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const INBOUND_PROVIDER_PATH = "/api/inbound/provider";

/** The route this fast path serves, for the route-coverage check against the public OpenAPI document. */
export const INBOUND_PROVIDER_ROUTES = ["POST /api/inbound/provider"];

/** On plain node:http ahead of Express, as notification-ingest's receiver. */
export function inboundProviderFastPath(
  deps: InboundProviderDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return snsFastPath(INBOUND_PROVIDER_PATH, inboundProviderHandler(deps), deps.logger);
}
