import { randomFillSync } from "node:crypto";

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
