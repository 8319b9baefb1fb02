import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The platform signs the raw body: base64 of HMAC-SHA256 keyed with the shop's secret. Compared timing-safe
 * against each secret that is valid now (the current one, and the previous one during a rotation's grace).
 */
export function shopHmacMatches(raw: Buffer, header: string | undefined, secrets: string[]): boolean {
  if (!header) return false;
  const given = Buffer.from(header.trim(), "base64");
  if (given.length !== 32) return false;
  return secrets.some((secret) => timingSafeEqual(createHmac("sha256", secret).update(raw).digest(), given));
}

/** What a client signs with (tests, benches, the CLI's `shops test-webhook`). */
export function signShopBody(raw: string | Buffer, secret: string): string {
  return createHmac("sha256", secret).update(raw).digest("base64");
}
