import { randomBytes, randomUUID } from "node:crypto";

/** SES-looking message id: `<16 hex time>-<uuid>-000000`. */
export function sesMessageId(now = Date.now()): string {
  return `${now.toString(16).padStart(16, "0")}-${randomUUID()}-000000`;
}

/** Easy DKIM tokens are 32 lowercase base32-ish characters. */
export function dkimToken(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  return Array.from(randomBytes(32), (b) => alphabet[b % 32]).join("");
}

/** SES inbound ids are opaque lowercase strings; they double as the S3 object key. */
export function inboundMessageId(): string {
  return randomBytes(20).toString("hex");
}
