import type { IncomingMessage, ServerResponse } from "node:http";
import { Exchanges, makeEnvelope, RoutingKeys } from "@emailsvc/contracts";
import type { Broker } from "@emailsvc/messaging";
import type { Logger } from "@emailsvc/observability";
import { AWS_SNS_CERT_HOST, SnsVerificationError } from "@emailsvc/provider";

export interface ProviderWebhookDeps {
  verify(message: Record<string, unknown>): Promise<void>;
  broker: Pick<Broker, "publish">;
  logger: Logger;
  /** Confirms a subscription (GET SubscribeURL); injectable for tests. */
  confirmSubscription?: (url: string) => Promise<void>;
}

/** SNS messages are at most 256 KB. */
const BODY_LIMIT = 256 * 1024;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function getSubscribeUrl(url: string): Promise<void> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`SubscribeURL answered ${res.status}`);
}

/**
 * POST /webhooks/provider (spec 4.9). SNS posts `text/plain` JSON. Responses:
 *   200 { success: true }                          notification accepted (queued) or subscription confirmed
 *   400 { success: false, error: "Invalid JSON" }  body is not JSON / not an SNS message
 *   403 { success: false, error: "Invalid SNS signature" }  signature, certificate host or topic refused
 *   413 { success: false, error: "Request body too large" } more than SNS's 256 KB
 *   500 { success: false, error }                  could not queue it (SNS retries)
 * A notification is only queued here (confirmed publish); the DB work runs in the consumer.
 */
export function providerWebhookHandler(deps: ProviderWebhookDeps): (raw: string) => Promise<Answer> {
  const confirm = deps.confirmSubscription ?? getSubscribeUrl;
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
      await deps.verify(msg);
    } catch (err) {
      deps.logger.warn(
        { reason: err instanceof SnsVerificationError ? err.reason : String(err) },
        "refused SNS message",
      );
      return { status: 403, body: { success: false, error: "Invalid SNS signature" } };
    }
    try {
      if (msg.Type === "SubscriptionConfirmation") {
        const url = String(msg.SubscribeURL ?? "");
        let host = "";
        try {
          const u = new URL(url);
          host = u.protocol === "https:" ? u.hostname : "";
        } catch {
          /* invalid */
        }
        // Only ever call back to an AWS SNS host, whatever the (verified) message says.
        if (!AWS_SNS_CERT_HOST.test(host))
          return { status: 400, body: { success: false, error: "SubscribeURL is not an AWS SNS URL" } };
        await confirm(url);
        return { status: 200, body: { success: true, message: "Subscription confirmed" } };
      }
      if (msg.Type !== "Notification")
        return { status: 200, body: { success: true, message: `${String(msg.Type)} acknowledged` } };
      const envelope = makeEnvelope(
        RoutingKeys.providerNotification,
        {
          notificationId: String(msg.MessageId),
          message: String(msg.Message),
          topicArn: String(msg.TopicArn),
        },
        { projectId: null },
      );
      await deps.broker.publish(Exchanges.providerNotifications, RoutingKeys.providerNotification, envelope);
      return { status: 200, body: { success: true } };
    } catch (err) {
      deps.logger.error({ err, type: msg.Type }, "could not take the SNS message; SNS will retry");
      return { status: 500, body: { success: false, error: "Could not accept the message, try again" } };
    }
  };
}

function send(res: ServerResponse, a: Answer): void {
  const json = JSON.stringify(a.body);
  res.writeHead(a.status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(json),
  });
  res.end(json);
}

/** The route this fast path serves, for the route-coverage check against the public OpenAPI document. */
export const PROVIDER_WEBHOOK_ROUTES = ["POST /webhooks/provider"];
const PATH = /^\/webhooks\/provider\/?(?:\?|$)/;

/**
 * POST /webhooks/provider on plain node:http, ahead of Express (as the pixel): every delivery, bounce and open of
 * every email arrives here, and Express's per-request set-up, router walk and body parser cost more than the
 * signature check. Returns false for every other request, which Express then handles as usual.
 */
export function providerWebhookFastPath(deps: ProviderWebhookDeps) {
  const handle = providerWebhookHandler(deps);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== "POST" || !PATH.test(req.url ?? "")) return false;
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > BODY_LIMIT) {
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
          deps.logger.error({ err }, "SNS receiver failed");
          if (!res.headersSent)
            send(res, { status: 500, body: { success: false, error: "Internal server error" } });
        });
    });
    req.on("error", () => res.destroy());
    return true;
  };
}
