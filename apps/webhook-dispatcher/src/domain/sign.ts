import { createHmac } from "node:crypto";

/**
 * Headers of a client webhook: spec 6.2's `X-SVC-Signature: sha256=<hex HMAC-SHA256(raw body, API key)>` and
 * `User-Agent: Service-Webhook/1.0`, plus Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256("<id>.<timestamp>.<body>")>` keyed with the same API key's bytes)
 * so receivers can reject replays by id and age.
 */
export function signedHeaders(
  body: string,
  key: string,
  id: string,
  now = new Date(),
): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    "Content-Type": "application/json",
    "User-Agent": "Service-Webhook/1.0",
    "X-SVC-Signature": `sha256=${createHmac("sha256", key).update(body).digest("hex")}`,
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`,
  };
}
