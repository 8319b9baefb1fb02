import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The attachment `download_url` of the inbound webhook (spec 6.2: signed, valid 7 days): our own link,
 * `<base>/api/inbound/attachments/<id>?expires=<unix seconds>&sig=<hex HMAC-SHA256>`, which answers with a
 * redirect to a freshly presigned S3 URL of a few minutes. A presigned S3 URL handed out for 7 days would die
 * with the temporary role credentials that signed it (often within hours), and 7 days is SigV4's ceiling.
 */
export const ATTACHMENT_LINK_PATH = "/api/inbound/attachments/";

const sign = (secret: string, id: string, expires: number) =>
  createHmac("sha256", secret).update(`inbound-attachment:${id}:${expires}`).digest("hex");

export function attachmentLink(
  baseUrl: string,
  secret: string,
  id: string,
  expiresAt: Date,
): { url: string; expires: number } {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const base = baseUrl.replace(/\/+$/, "");
  return {
    url: `${base}${ATTACHMENT_LINK_PATH}${id}?expires=${expires}&sig=${sign(secret, id, expires)}`,
    expires,
  };
}

/** "ok", or why the link is refused: its signature does not match, or it has expired. */
export function checkAttachmentLink(
  secret: string,
  id: string,
  expires: string | undefined,
  sig: string | undefined,
  now = Date.now(),
): "ok" | "invalid" | "expired" {
  if (!expires || !/^\d{1,12}$/.test(expires) || !sig || !/^[0-9a-f]{64}$/.test(sig)) return "invalid";
  const want = Buffer.from(sign(secret, id, Number(expires)), "hex");
  if (!timingSafeEqual(want, Buffer.from(sig, "hex"))) return "invalid";
  return Number(expires) * 1000 < now ? "expired" : "ok";
}
