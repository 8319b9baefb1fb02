import { asciiDomainAddress } from "./send-requests";

/** The part after the last `@`, lowercased, in its ASCII (punycode) form as domain identities store it. */
export function senderDomain(email: string): string {
  const address = asciiDomainAddress(email);
  return address.slice(address.lastIndexOf("@") + 1);
}

/**
 * The address as sender profiles store it: lower-cased, the domain in its ASCII (punycode) form, so a profile
 * verified for `z@bücher.de` matches a send from `z@xn--bcher-kva.de` and the other way round.
 */
export function senderAddress(email: string): string {
  return asciiDomainAddress(email.toLowerCase());
}

/**
 * The forms a sender profile may hold the address in: `senderAddress`, and the address lower-cased as written
 * (profiles stored before addresses were normalized keep an internationalized domain in Unicode).
 */
export function senderAddressForms(email: string): string[] {
  return [...new Set([senderAddress(email), email.toLowerCase()])];
}
