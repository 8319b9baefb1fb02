import { domainToASCII, domainToUnicode } from "node:url";
import { isEmailAddress } from "@emailsvc/contracts";

export interface DomainName {
  /** Stored and sent to the provider: lowercase ASCII (punycode for internationalized names). */
  ascii: string;
  /** Shown to users: the Unicode form. */
  unicode: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Parses a sending domain (Unicode or punycode, any case, optional trailing dot) into both forms, so an
 * internationalized domain is stored and shown the same whichever form the client sends. Null when invalid.
 */
export function parseDomain(input: unknown): DomainName | null {
  if (typeof input !== "string") return null;
  const raw = input.trim().toLowerCase().replace(/\.$/, "");
  if (!raw || raw.length > 253 || /[\s/@:]/.test(raw)) return null;
  const ascii = domainToASCII(raw);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1]!))
    return null;
  return { ascii, unicode: domainToUnicode(ascii) || ascii };
}

/** The domain part of an address, parsed the same way. */
export function emailDomain(email: string): DomainName | null {
  const at = email.lastIndexOf("@");
  return at > 0 ? parseDomain(email.slice(at + 1)) : null;
}

/** The MAIL FROM subdomain every registered domain gets; the domain must leave room for it (253 in all). */
export const MAIL_FROM_LABEL = "bounce";

/** A domain that can be registered: valid, and short enough for `bounce.<domain>` to be valid too. */
export function parseSendingDomain(input: unknown): DomainName | null {
  const name = parseDomain(input);
  return name && name.ascii.length + MAIL_FROM_LABEL.length + 1 <= 253 ? name : null;
}

/**
 * A sender address as stored and compared (what the send path's sender check reads): the send endpoints'
 * address rules (contracts' isEmailAddress), lower-cased, the domain in its ASCII (punycode) form without a
 * trailing dot, so `z@bücher.de`, `Z@XN--BCHER-KVA.DE.` and `z@xn--bcher-kva.de` are one sender. Null when
 * the value is not an address.
 */
export function normalizeEmail(input: unknown): string | null {
  if (typeof input !== "string") return null;
  const raw = input.trim().toLowerCase();
  const at = raw.lastIndexOf("@");
  const domain = at > 0 ? parseDomain(raw.slice(at + 1)) : null;
  if (!domain) return null;
  const email = `${raw.slice(0, at)}@${domain.ascii}`;
  return isEmailAddress(email) ? email : null;
}

/** The normalized sender address when it is an address on this domain (ASCII form), else null. */
export function senderOnDomain(email: string, asciiDomain: string): string | null {
  const normalized = normalizeEmail(email);
  return normalized?.endsWith(`@${asciiDomain}`) ? normalized : null;
}
