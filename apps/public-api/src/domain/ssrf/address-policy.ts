import ipaddr from "ipaddr.js";

/** Decides whether an outgoing connection to an IP address is allowed. */
export type AddressPolicy = (address: string) => boolean;

/**
 * Only globally routable unicast addresses. ipaddr.js classifies everything else by name: loopback, private
 * (10/8, 172.16/12, 192.168/16), linkLocal (169.254/16 incl. the cloud metadata address, fe80::/10),
 * carrierGradeNat (100.64/10), multicast, unspecified, broadcast, reserved, uniqueLocal (fc00::/7),
 * ipv4Mapped (::ffff:0:0/96), and the v6 transition ranges (6to4, teredo, NAT64) that can reach a private v4
 * address. IPv4-mapped addresses are refused outright rather than unwrapped: there is no legitimate reason for
 * an attachment URL to use one.
 */
export function isPublicUnicast(address: string): boolean {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return false;
  // isValid accepts the legacy shorthand forms (127.1, 0x7f.1); parse() normalises them the same way URL does.
  return ipaddr.parse(bare).range() === "unicast";
}

export const allowAnyAddress: AddressPolicy = () => true;

/**
 * The literal IP address a URL hostname is, or null when it is a name to resolve. WHATWG URL has already
 * normalised shorthand IPv4 (`127.1`, `0x7f.0.0.1`) to dotted quads and wraps IPv6 in brackets.
 */
export function literalIp(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(bare))
    ? bare
    : null;
}
