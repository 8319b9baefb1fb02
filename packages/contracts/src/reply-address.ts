import { randomFillSync } from "node:crypto";
import { UUID_SOURCE } from "./ids";

/** Spec 8: "Reply token length 8 characters". */
export const REPLY_TOKEN_LENGTH = 8;

/**
 * Lowercase letters and digits: URL-safe, and safe in an address local part even through mail servers that
 * lowercase addresses (a mixed-case token could then never be found again). 36^8 ≈ 2.8e12 values.
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** Bytes at or above 252 (7 × 36) are skipped, so every character stays equally likely. */
const UNBIASED_LIMIT = 252;

// A batch draws 12,500 tokens at once: one randomFillSync per 4 KB instead of a crypto call per character.
const bytes = Buffer.alloc(4096);
let offset = bytes.length;

function randomChar(): string {
  for (;;) {
    if (offset === bytes.length) {
      randomFillSync(bytes);
      offset = 0;
    }
    const b = bytes[offset++]!;
    if (b < UNBIASED_LIMIT) return ALPHABET[b % ALPHABET.length]!;
  }
}

export function newReplyToken(): string {
  let token = "";
  for (let i = 0; i < REPLY_TOKEN_LENGTH; i++) token += randomChar();
  return token;
}

export const isReplyToken = (value: string): boolean => /^[a-z0-9]{8}$/.test(value);

/**
 * The Reply-To address of a send with a token (spec 4.11): `r-<token>@{inbound_domain}`. Built by the
 * send-worker, parsed by inbound-mail; the token is drawn when the send is accepted.
 */
export function formatReplyAddress(token: string, inboundDomain: string): string {
  return `r-${token}@${inboundDomain}`;
}

export type ParsedReplyAddress =
  { form: "token"; token: string } | { form: "legacy"; projectId: string; activityId: string };

/**
 * Which of our reply forms an address is, at our inbound domain: the token `r-<token>@…`, or the legacy return
 * path `reply+<projectId>-<activityId>@…` (spec 4.9 b). Case-insensitive: mail servers may change the case of
 * a local part, which is why tokens are lower-case. Any other address, or another domain, is null.
 */
export function parseReplyAddress(address: string, inboundDomain: string): ParsedReplyAddress | null {
  const at = address.lastIndexOf("@");
  if (at <= 0) return null;
  const domain = address.slice(at + 1).toLowerCase();
  if (domain !== inboundDomain.toLowerCase()) return null;
  const local = address.slice(0, at).toLowerCase();
  const token = /^r-([a-z0-9]{8})$/.exec(local);
  if (token) return { form: "token", token: token[1]! };
  const legacy = new RegExp(`^reply\\+(${UUID_SOURCE})-(${UUID_SOURCE})$`).exec(local);
  if (legacy) return { form: "legacy", projectId: legacy[1]!, activityId: legacy[2]! };
  return null;
}
