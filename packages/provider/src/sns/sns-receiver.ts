import type { IncomingMessage, ServerResponse } from "node:http";
import {
  AWS_SNS_CERT_HOST,
  createSnsVerifier,
  SnsVerificationError,
  type SnsVerifierOptions,
} from "./sns-verifier";

/**
 * The HTTP side of an SNS subscription, shared by every receiver (provider notifications, inbound mail): parse,
 * verify the signature (certificate host pinned, topic allowlist), confirm a subscription only to an AWS SNS
 * host, acknowledge an UnsubscribeConfirmation, and hand a Notification to the service. Answers:
 *   200 { success: true, …what onNotification returned }   taken (or subscription confirmed / acknowledged)
 *   400 { success: false, error: "Invalid JSON" }            not JSON / not an SNS message
 *   400 { success: false, error: "SubscribeURL is not an AWS SNS URL" }
 *   400 { success: false, error }                            onNotification refused it (SnsPayloadError)
 *   403 { success: false, error: "Invalid SNS signature" }   signature, certificate host or topic refused
 *   413 { success: false, error: "Request body too large" }  more than SNS's 256 KB
 *   500 { success: false, error }                            could not take it (SNS retries)
 */
/**
 * A verifier, optionally carrying the rule for the SubscribeURLs it trusts (`snsVerifierFromEnv` attaches the one
 * its certificate-host config makes): without one, only https AWS SNS hosts are ever called back.
 */
export type SnsVerify = ((message: Record<string, unknown>) => Promise<void>) & {
  subscribeUrlAllowed?: (url: URL) => boolean;
};

export interface SnsReceiverOptions {
  verify: SnsVerify;
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** A verified Notification: store or queue it durably before resolving (throw → 500, SNS retries). */
  onNotification(message: SnsNotification): Promise<Record<string, unknown> | void>;
  /** A verified UnsubscribeConfirmation, e.g. to record that the topic no longer delivers here. */
  onUnsubscribeConfirmation?(message: Record<string, unknown>): Promise<void>;
  /** Confirms a subscription (GET SubscribeURL); injectable for tests. */
  confirmSubscription?: (url: string) => Promise<void>;
}

/**
 * Thrown by `onNotification` for a notification that is authentic but unusable (its Message is not what the
 * receiver takes): answered 400 with this message. SNS does not retry a 4xx, which is right for it.
 */
export class SnsPayloadError extends Error {
  override name = "SnsPayloadError";
}

export interface SnsNotification {
  MessageId: string;
  TopicArn: string;
  Message: string;
  Subject?: string;
  Timestamp?: string;
}

export interface SnsAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** SNS messages are at most 256 KB. */
export const SNS_BODY_LIMIT = 256 * 1024;

async function getSubscribeUrl(url: string): Promise<void> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`SubscribeURL answered ${res.status}`);
}

/** The production rule: a SubscribeURL is called back only over https on an AWS SNS host. */
export function awsSubscribeUrl(url: URL): boolean {
  return url.protocol === "https:" && AWS_SNS_CERT_HOST.test(url.hostname);
}

/**
 * Verifier options from a receiver's env (`snsReceiverEnv` of @emailsvc/config). The SubscribeURLs it trusts follow
 * the same explicit widening as the certificate hosts (SNS_CERT_HOST_PATTERN, SNS_ALLOW_HTTP_CERT_URLS): in
 * production that is the AWS rule; a dev or test stack that trusts the simulator's certificate also lets its
 * SubscriptionConfirmation be confirmed, as spec 4.9 says ("confirmed automatically").
 */
export function snsVerifierFromEnv(env: {
  SNS_CERT_HOST_PATTERN?: string | undefined;
  SNS_ALLOW_HTTP_CERT_URLS: boolean;
  SNS_TOPIC_ARNS: string;
}): SnsVerify {
  const topics = env.SNS_TOPIC_ARNS.split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const opts: SnsVerifierOptions = {
    ...(env.SNS_CERT_HOST_PATTERN ? { allowedCertHosts: new RegExp(env.SNS_CERT_HOST_PATTERN) } : {}),
    allowHttpCertUrls: env.SNS_ALLOW_HTTP_CERT_URLS,
    ...(topics.length ? { topicArnAllowlist: topics } : {}),
  };
  const verifier = createSnsVerifier(opts);
  const hostRule = opts.allowedCertHosts;
  const verify: SnsVerify = (m) => verifier.verify(m);
  verify.subscribeUrlAllowed = hostRule
    ? (url) =>
        (url.protocol === "https:" || (env.SNS_ALLOW_HTTP_CERT_URLS && url.protocol === "http:")) &&
        hostRule.test(url.hostname)
    : awsSubscribeUrl;
  return verify;
}

export function createSnsReceiver(opts: SnsReceiverOptions): (raw: string) => Promise<SnsAnswer> {
  const confirm = opts.confirmSubscription ?? getSubscribeUrl;
  const subscribeUrlAllowed = opts.verify.subscribeUrlAllowed ?? awsSubscribeUrl;
  return async (raw) => {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(raw) as Record<string, unknown>;
      if (!msg || typeof msg !== "object" || typeof msg.Type !== "string")
        throw new Error("not an SNS message");
    } catch {
      return { status: 400, body: { success: false, error: "Invalid JSON" } };
    }
    try {
      await opts.verify(msg);
    } catch (err) {
      opts.logger.warn(
        { reason: err instanceof SnsVerificationError ? err.reason : String(err) },
        "refused SNS message",
      );
      return { status: 403, body: { success: false, error: "Invalid SNS signature" } };
    }
    try {
      if (msg.Type === "SubscriptionConfirmation") {
        const url = String(msg.SubscribeURL ?? "");
        let allowed = false;
        try {
          allowed = subscribeUrlAllowed(new URL(url));
        } catch {
          /* invalid */
        }
        // Only ever call back to an AWS SNS host (or the explicitly trusted local one), whatever the (verified)
        // message says.
        if (!allowed)
          return { status: 400, body: { success: false, error: "SubscribeURL is not an AWS SNS URL" } };
        await confirm(url);
        return { status: 200, body: { success: true, message: "Subscription confirmed" } };
      }
      if (msg.Type === "UnsubscribeConfirmation") {
        await opts.onUnsubscribeConfirmation?.(msg);
        return { status: 200, body: { success: true, message: "UnsubscribeConfirmation acknowledged" } };
      }
      if (msg.Type !== "Notification")
        return { status: 200, body: { success: true, message: `${String(msg.Type)} acknowledged` } };
      const extra = await opts.onNotification({
        MessageId: String(msg.MessageId),
        TopicArn: String(msg.TopicArn),
        Message: String(msg.Message),
        ...(typeof msg.Subject === "string" ? { Subject: msg.Subject } : {}),
        ...(typeof msg.Timestamp === "string" ? { Timestamp: msg.Timestamp } : {}),
      });
      return { status: 200, body: { success: true, ...(extra ?? {}) } };
    } catch (err) {
      if (err instanceof SnsPayloadError) {
        opts.logger.warn({ reason: err.message, type: msg.Type }, "refused SNS notification payload");
        return { status: 400, body: { success: false, error: err.message } };
      }
      opts.logger.error({ err, type: msg.Type }, "could not take the SNS message; SNS will retry");
      return { status: 500, body: { success: false, error: "Could not accept the message, try again" } };
    }
  };
}

function send(res: ServerResponse, a: SnsAnswer): void {
  const json = JSON.stringify(a.body);
  res.writeHead(a.status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(json),
  });
  res.end(json);
}

/**
 * POST `path` on plain node:http, ahead of Express: a receiver that takes every delivery, bounce or reply gains
 * from skipping Express's per-request set-up and body parser. Returns false for every other request, which the
 * caller then hands to Express as usual.
 */
export function snsFastPath(
  path: string,
  handle: (raw: string) => Promise<SnsAnswer>,
  logger: SnsReceiverOptions["logger"],
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const escaped = path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const PATH = new RegExp(`^${escaped}/?(?:\\?|$)`);
  return (req, res) => {
    if (req.method !== "POST" || !PATH.test(req.url ?? "")) return false;
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > SNS_BODY_LIMIT) {
        refused = true;
        res.setHeader("Connection", "close");
        send(res, { status: 413, body: { success: false, error: "Request body too large" } });
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (refused) return;
      const raw = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      void handle(raw)
        .then((a) => send(res, a))
        .catch((err: unknown) => {
          logger.error({ err }, "SNS receiver failed");
          if (!res.headersSent)
            send(res, { status: 500, body: { success: false, error: "Internal server error" } });
        });
    });
    req.on("error", () => res.destroy());
    return true;
  };
}
