import { randomInt } from "node:crypto";

/** Spec 8: "Reply token length 8 characters". */
export const REPLY_TOKEN_LENGTH = 8;

/**
 * Lowercase letters and digits: URL-safe, and safe in an address local part even through mail servers that
 * lowercase addresses (a mixed-case token could then never be found again). 36^8 ≈ 2.8e12 values.
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export function newReplyToken(): string {
  let token = "";
  for (let i = 0; i < REPLY_TOKEN_LENGTH; i++) token += ALPHABET[randomInt(ALPHABET.length)];
  return token;
}

export const isReplyToken = (value: string): boolean => /^[a-z0-9]{8}$/.test(value);
