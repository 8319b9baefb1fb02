import { addUnsubscribeFooter, RenderLimitError, unsubscribeUrl } from "@emailsvc/content";
import { asciiDomainAddress, formatReplyAddress, type ProjectId } from "@emailsvc/contracts";
import type { Logger } from "@emailsvc/observability";
import {
  classifyProviderError,
  type createS3Client,
  type createSesClient,
  getObjectBytes,
  isProviderOutcomeUnknown,
  isProviderTimeout,
  sendRawEmail,
} from "@emailsvc/provider";
import { buildMime, type MimeInput } from "../domain/build-mime";
import { renderActivity } from "../domain/render-activity";
import type { RateLimiter } from "../infra/rate-limiter";
import {
  claimActivities,
  isFirstActivity,
  loadQueued,
  loadMessage,
  markFailed,
  releaseClaim,
  type SendStatements,
  type StoredMessage,
  type Db,
} from "@emailsvc/db";

export interface SendActivityDeps {
  db: Db;
  ses: ReturnType<typeof createSesClient>;
  s3: ReturnType<typeof createS3Client>;
  limiter: RateLimiter;
  logger: Logger;
  attachmentsBucket: string;
  inboundDomain: string;
  tracking: { baseUrl: string; secret: string };
  /** Read, claim and mark-sent, group-committed with the other sends in flight (`createSendStatements`). */
  statements: SendStatements;
  /** Called after a commit that wrote outbox rows. */
  kickOutbox: () => void;
  /** Message rows shared by many activities (a batch): kept briefly to avoid reloading 12,500 times. */
  messageCache?: Map<string, { at: number; message: Promise<StoredMessage> }>;
  /** The SES client's request timeout (PROVIDER_TIMEOUT_MS): how long a provider call may take at most. */
  providerTimeoutMs?: number;
  /** How long an accepted send's recording is retried (default MARK_SENT_RETRY_MS). */
  markSentRetryMs?: number;
  /** Tests only (SEND_TEST_HOLD_AFTER_CLAIMS): runs between a won claim and the provider call. */
  afterClaim?: () => Promise<void>;
  /** The project's postal address for the bulk footer (`createPostalAddresses`); none when absent. */
  postalAddress?: (projectId: ProjectId) => Promise<string | null>;
}

/**
 * Which lane a send came on (ARCHITECTURE.md "Two lanes, one provider rate"): `bulk` sends (campaigns) take only
 * the rate's spare slots, so transactional mail is never held up behind a campaign.
 */
export type SendLane = "transactional" | "bulk";

/**
 * A concurrency place of the bulk lane (its semaphore): taken for the send itself — the claim, the sliding-second
 * check and the provider call — not for reading, rendering, waiting for the rate slot or recording the answer.
 */
export type Place = <T>(fn: () => Promise<T>) => Promise<T>;

/** Time kept for the answer to travel back to a waiting caller after the provider call ends. */
export const REPLY_MARGIN_MS = 1000;
/** A provider call is not started with less time than this left before the caller's deadline. */
export const MIN_CALL_MS = 1000;

export class DeadlineError extends Error {
  constructor() {
    super("Timed out waiting for the email provider: no time left to call it before the caller's deadline");
    this.name = "DeadlineError";
  }
}

export type SendOutcome =
  | { kind: "sent"; providerMessageId: string }
  /** Not claimable: already sending/sent/cancelled/failed (a redelivery) or unknown. */
  | { kind: "skipped" }
  /** Claim given back; try again later. `throttle` never counts as a failure. */
  | {
      kind: "retry";
      reason: "throttle" | "transient";
      timeout: boolean;
      message: string;
      /** Certainly not sent: the provider was never called (no time left before a caller's deadline). */
      unsent?: boolean;
    }
  | { kind: "failed"; reason: string }
  /**
   * The call ended with no answer after the request may have reached the provider (a request timeout, the
   * connection reset): SES may have sent it. The claim is kept (`sending`, its send_claims row): the `Send`
   * notification settles it, or else the reconciler after SEND_RECONCILE_AFTER_MS, as the project chose
   * (`on_send_unknown`). Not to be retried: a retry would be a second copy of an email SES may have sent.
   */
  | { kind: "unknown"; message: string };

function cachedMessage(deps: SendActivityDeps, id: string): Promise<StoredMessage> {
  const cache = deps.messageCache;
  if (!cache) return loadMessage(deps.db, id);
  const hit = cache.get(id);
  if (hit && Date.now() - hit.at < 60_000) return hit.message;
  if (cache.size > 500) cache.clear();
  const message = loadMessage(deps.db, id);
  cache.set(id, { at: Date.now(), message });
  message.catch(() => cache.delete(id));
  return message;
}

/**
 * Sends one activity: read it while `queued`, render, build MIME, take a slot from the global rate limiter, claim
 * it (queued → sending), call SES, then mark sent + email.sent in one statement. With `place` (the bulk lane) only
 * the claim and the call hold one of the lane's concurrency places; without, the caller's place holds it all. The claim comes last so that
 * `sending` means the provider call is under way: a worker that dies while rendering or waiting for a slot (with
 * a backlog, most sends in flight are waiting) leaves the activity `queued`, and the redelivered message sends
 * it; a claimed activity is never sent twice. Provider failures are classified: throttling and transient errors
 * that did not leave or were answered (refused, never connected, a 5xx) give the claim back for a delayed retry,
 * permanent ones mark the activity failed, and a call left without an answer once the request was out (a timeout,
 * a reset) keeps its claim: outcome unknown, settled by the Send notification or the reconciler.
 */
export async function sendActivity(
  deps: SendActivityDeps,
  activityId: string,
  opts: {
    deadline?: number;
    lane?: SendLane;
    place?: Place;
    /**
     * An outcome-unknown call gives its claim back and answers `retry` (timeout) instead of `unknown`: for the
     * synchronous RPC, which records the send failed at once (its caller is told 504) and lets a later `Send`
     * notification settle it `sent`.
     */
    releaseUnknown?: boolean;
  } = {},
): Promise<SendOutcome> {
  const claim = await deps.statements.load(activityId);
  if (!claim) return { kind: "skipped" };
  const { activity } = claim;
  let providerMessageId: string;
  let claimed = false;
  let called = false;
  try {
    const message = claim.message ?? (await cachedMessage(deps, activity.emailMessageId));
    let rendered = renderActivity({
      activityId: activity.id,
      subject: message.subject,
      html: message.html,
      text: message.text,
      data: activity.data,
      fromTemplate: message.templateId !== null,
      tracking: activity.projectId ? deps.tracking : null,
    });
    const withCopies =
      (message.cc.length || message.bcc.length) && (await isFirstActivity(deps.db, message.id, activity.id));
    const attachments = await Promise.all(
      (message.attachments ?? []).map(async (a) => ({
        filename: a.filename,
        contentType: a.contentType,
        content: await getObjectBytes(deps.s3, deps.attachmentsBucket, a.storageKey),
      })),
    );
    // One line wherever it is shown (From, Reply-To, the unsubscribe footer): a CR/LF kept inside the From's
    // encoded name broke the display name, and in the footer it could start a line of its own.
    const fromName = message.fromName?.replace(/[\r\n]+/g, " ").trim() || null;
    const headers: MimeInput["headers"] = { ...(message.headers ?? {}) };
    const bulk = message.source === "campaign" || (activity.inBatch && message.emailType !== "transactional");
    if (bulk && activity.projectId) {
      // Bulk mail (spec 4.1: unsubscribe headers and the compliance footer come with campaign sends and
      // /v1/send-batch): RFC 8058 one-click unsubscribe, which the large mailbox providers require of bulk senders,
      // and a footer with the link and the sender's postal address.
      const url = unsubscribeUrl(deps.tracking.baseUrl, deps.tracking.secret, activity.id);
      headers["List-Unsubscribe"] = `<${url}>`;
      headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
      const sender = fromName ? `${fromName} (${message.fromEmail})` : message.fromEmail;
      const postalAddress = (await deps.postalAddress?.(activity.projectId)) ?? null;
      rendered = { ...rendered, ...addUnsubscribeFooter(rendered, { url, sender, postalAddress }) };
    }
    let replyTo: MimeInput["replyTo"] = null;
    if (activity.replyToken) {
      delete headers["Reply-To"];
      replyTo = {
        name: fromName ?? message.fromEmail,
        address: formatReplyAddress(activity.replyToken, deps.inboundDomain),
      };
    }
    const raw = await buildMime({
      from: { name: fromName, address: message.fromEmail },
      to: activity.recipient,
      cc: withCopies ? message.cc : [],
      replyTo,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      headers,
      attachments,
    });
    await (opts.lane === "bulk" ? deps.limiter.reserveBulk() : deps.limiter.reserve());
    // A synchronous caller (internal POST /send-email) gives up at its deadline and tells the client 504: the
    // call must end before then, or the email could go out after the client was told it timed out. Without
    // the time for a call, the activity is not claimed (certainly not sent).
    const callTimeout = () => {
      if (opts.deadline === undefined) return undefined;
      const left = opts.deadline - Date.now() - REPLY_MARGIN_MS;
      if (left < MIN_CALL_MS) throw new DeadlineError();
      return Math.min(left, deps.providerTimeoutMs ?? left);
    };
    callTimeout();
    const place = opts.place ?? ((fn) => fn());
    const answer = await place(async () => {
      // Another delivery of the same message may have sent it meanwhile: its slot is then simply unused.
      claimed = await deps.statements.claim(activity.id);
      if (!claimed) return null;
      if (deps.afterClaim) await deps.afterClaim();
      // The sliding-second check last, after the claim's round trip: the call counts against the provider's second
      // from this check until a second after its answer, so the sooner it leaves, the less of the rate it costs.
      const call = await deps.limiter.dispatch(opts.lane);
      let requestTimeout: number | undefined;
      try {
        requestTimeout = callTimeout();
      } catch (err) {
        call.unused();
        throw err;
      }
      try {
        called = true;
        return await sendRawEmail(deps.ses, {
          ...(requestTimeout !== undefined ? { requestTimeout } : {}),
          // Every envelope address with its domain in punycode: SES takes 7-bit ASCII addresses only (and the
          // sender's identity has that form); nodemailer converts the MIME headers the same way.
          from: asciiDomainAddress(message.fromEmail),
          to: [asciiDomainAddress(activity.recipient)],
          ...(withCopies
            ? { cc: message.cc.map(asciiDomainAddress), bcc: message.bcc.map(asciiDomainAddress) }
            : {}),
          raw,
          tags: { activity_id: activity.id },
        });
      } finally {
        // Answered or failed (a timeout too): it arrived at the provider, if at all, before now.
        call.answered();
      }
    });
    if (!answer) return { kind: "skipped" };
    providerMessageId = answer.messageId;
  } catch (err) {
    // Content past the rendering limits (batch data) can never be sent: failed, not retried.
    const kind = err instanceof RenderLimitError ? "permanent" : classifyProviderError(err);
    const message = err instanceof Error ? err.message : String(err);
    if (kind === "permanent") {
      // A permanent failure before the claim (an attachment gone from S3): claim it to fail it, exactly once.
      if (!claimed && !(await deps.statements.claim(activity.id))) return { kind: "skipped" };
      await markFailed(deps.db, activity, message);
      deps.kickOutbox();
      deps.logger.warn({ activityId, err: message }, "permanent send failure");
      return { kind: "failed", reason: message };
    }
    if (claimed && called && !opts.releaseUnknown && isProviderOutcomeUnknown(err)) {
      // Given back, the redelivered message would send it again: a second copy whenever SES had accepted it
      // (bench/chaos: 77 doubles on a loaded machine, the answer read after the request timeout had fired).
      deps.logger.warn(
        { activityId, err: message },
        "provider call ended without an answer; outcome unknown, left to the Send notification or the reconciler",
      );
      return { kind: "unknown", message };
    }
    if (claimed) await releaseClaim(deps.db, activity.id);
    deps.logger.info({ activityId, kind, err: message }, "send will be retried");
    return {
      kind: "retry",
      reason: kind,
      timeout: err instanceof DeadlineError || isProviderTimeout(err),
      message,
      ...(err instanceof DeadlineError ? { unsent: true } : {}),
    };
  }
  // The provider accepted it: from here on an error must never lead to a second send. The answer is in hand, so
  // recording it is retried through a database restart; if it still fails the activity stays `sending`, and the
  // provider's Send notification (matched by the activity_id tag) settles it, or else the reconciler.
  if (await markSentRetrying(deps, activity, providerMessageId)) deps.kickOutbox();
  return { kind: "sent", providerMessageId };
}

/** How long an accepted send's answer is kept and its recording retried (a PostgreSQL restart or failover). */
export const MARK_SENT_RETRY_MS = 30_000;

/**
 * The mark-sent, retried with backoff for up to `markSentRetryMs`: given up at once, the provider's answer was lost
 * with it, and the send was left to the `Send` notification, or to the reconciler, which sends it again when that
 * notification is later than its window (bench/chaos: a PostgreSQL restart, then notification-ingest behind).
 */
async function markSentRetrying(
  deps: SendActivityDeps,
  activity: Parameters<SendStatements["markSent"]>[0],
  providerMessageId: string,
): Promise<boolean> {
  const until = Date.now() + (deps.markSentRetryMs ?? MARK_SENT_RETRY_MS);
  for (let waitMs = 250; ; waitMs = Math.min(waitMs * 2, 2000)) {
    try {
      return await deps.statements.markSent(activity, providerMessageId);
    } catch (err) {
      if (Date.now() + waitMs > until) throw err;
      deps.logger.warn(
        { activityId: activity.id, providerMessageId, err: err instanceof Error ? err.message : String(err) },
        "recording an accepted send failed; retrying",
      );
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}

/** Final give-up for a transient failure that outlived every retry (the claim was released before). */
export async function failReleased(
  deps: Pick<SendActivityDeps, "db" | "kickOutbox">,
  activityId: string,
  reason: string,
): Promise<void> {
  const [queued] = await loadQueued(deps.db, [activityId]);
  if (!queued || !(await claimActivities(deps.db, [activityId]))[0]) return;
  await markFailed(deps.db, queued.activity, reason);
  deps.kickOutbox();
}
