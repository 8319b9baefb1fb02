import express, { Router } from "express";
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

async function getSubscribeUrl(url: string): Promise<void> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`SubscribeURL answered ${res.status}`);
}

/**
 * POST /webhooks/provider (spec 4.9). SNS posts `text/plain` JSON. Responses:
 *   200 { success: true }                          notification accepted (queued) or subscription confirmed
 *   400 { success: false, error: "Invalid JSON" }  body is not JSON / not an SNS message
 *   403 { success: false, error: "Invalid SNS signature" }  signature, certificate host or topic refused
 *   500 { success: false, error }                  could not queue it (SNS retries)
 * A notification is only queued here (confirmed publish); the DB work runs in the consumer.
 */
export function providerWebhookRouter(deps: ProviderWebhookDeps): Router {
  const r = Router();
  const confirm = deps.confirmSubscription ?? getSubscribeUrl;
  r.post("/webhooks/provider", express.text({ type: () => true, limit: "256kb" }), async (req, res) => {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(typeof req.body === "string" ? req.body : "") as Record<string, unknown>;
      if (!msg || typeof msg !== "object" || typeof msg.Type !== "string")
        throw new Error("not an SNS message");
    } catch {
      res.status(400).json({ success: false, error: "Invalid JSON" });
      return;
    }
    try {
      await deps.verify(msg);
    } catch (err) {
      deps.logger.warn(
        { reason: err instanceof SnsVerificationError ? err.reason : String(err) },
        "refused SNS message",
      );
      res.status(403).json({ success: false, error: "Invalid SNS signature" });
      return;
    }
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
      if (!AWS_SNS_CERT_HOST.test(host)) {
        res.status(400).json({ success: false, error: "SubscribeURL is not an AWS SNS URL" });
        return;
      }
      await confirm(url);
      res.json({ success: true, message: "Subscription confirmed" });
      return;
    }
    if (msg.Type !== "Notification") {
      res.json({ success: true, message: `${String(msg.Type)} acknowledged` });
      return;
    }
    const envelope = makeEnvelope(
      RoutingKeys.providerNotification,
      { notificationId: String(msg.MessageId), message: String(msg.Message), topicArn: String(msg.TopicArn) },
      { projectId: null },
    );
    await deps.broker.publish(Exchanges.providerNotifications, RoutingKeys.providerNotification, envelope);
    res.json({ success: true });
  });
  return r;
}
