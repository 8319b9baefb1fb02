import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Click links are rewritten to `/t/c/:activityId?url=<original>&sig=<hmac>`; the click endpoint redirects only
 * when the signature matches, so it can never be used as an open redirect for URLs we did not write.
 * The signature covers the activity id and the exact original URL.
 */
export function signTrackedUrl(secret: string, activityId: string, url: string): string {
  return createHmac("sha256", secret).update(`${activityId}\n${url}`).digest("base64url").slice(0, 32);
}

export function verifyTrackedUrl(
  secret: string,
  activityId: string,
  url: string,
  sig: string | undefined,
): boolean {
  return sameSignature(signTrackedUrl(secret, activityId, url), sig);
}

/** A constant-time comparison of the signature we would write with the one given. */
function sameSignature(ours: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(ours);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The public click URL for a link, as written into the HTML at send time. */
export function clickUrl(baseUrl: string, secret: string, activityId: string, url: string): string {
  const sig = signTrackedUrl(secret, activityId, url);
  return `${baseUrl.replace(/\/$/, "")}/t/c/${activityId}?url=${encodeURIComponent(url)}&sig=${sig}`;
}

export function openPixelUrl(baseUrl: string, activityId: string): string {
  return `${baseUrl.replace(/\/$/, "")}/t/o/${activityId}`;
}

/** The signature of an activity's unsubscribe link: over the activity id alone, in its own domain. */
export function signUnsubscribe(secret: string, activityId: string): string {
  return createHmac("sha256", secret).update(`unsubscribe\n${activityId}`).digest("base64url").slice(0, 32);
}

export function verifyUnsubscribe(secret: string, activityId: string, sig: string | undefined): boolean {
  return sameSignature(signUnsubscribe(secret, activityId), sig);
}

/** `/t/u/:activityId?sig=…`: the List-Unsubscribe (RFC 8058 one-click POST) and footer link of a bulk email. */
export function unsubscribeUrl(baseUrl: string, secret: string, activityId: string): string {
  return `${baseUrl.replace(/\/$/, "")}/t/u/${activityId}?sig=${signUnsubscribe(secret, activityId)}`;
}
