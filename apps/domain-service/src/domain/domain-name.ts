import { domainToASCII, domainToUnicode } from "node:url";

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

const EMAIL = /^[^\s@"<>()[\],;:\\]+@[^\s@]+$/;
export function isEmail(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && EMAIL.test(value.trim());
}
