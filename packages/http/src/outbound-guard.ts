import dns, { type LookupAddress, type LookupOptions } from "node:dns";
import ipaddr from "ipaddr.js";
import { Agent } from "undici";

/*
 * Outgoing requests to URLs a client chose (attachment downloads, client webhooks) must not make the platform a
 * proxy into its own network (SSRF): only public unicast addresses are connected to, checked on the literal IP
 * of the URL and, for names, on the very addresses the socket then connects to.
 */

/** Decides whether an outgoing connection to an IP address is allowed. */
export type AddressPolicy = (address: string) => boolean;

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");

/**
 * Only globally routable unicast addresses. ipaddr.js classifies everything else by name: loopback, private
 * (10/8, 172.16/12, 192.168/16), linkLocal (169.254/16 incl. the cloud metadata address, fe80::/10),
 * carrierGradeNat (100.64/10), multicast, unspecified, broadcast, reserved, uniqueLocal (fc00::/7),
 * ipv4Mapped (::ffff:0:0/96), and the v6 transition ranges (6to4, teredo, NAT64) that can reach a private v4
 * address. IPv4-mapped addresses are refused outright rather than unwrapped: there is no legitimate reason for
 * a client's URL to use one.
 */
export function isPublicUnicast(address: string): boolean {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return false;
  // isValid accepts the legacy shorthand forms (127.1, 0x7f.1); parse() normalises them the same way URL does.
  const ip = ipaddr.parse(bare);
  // An IPv6 address must also be global unicast (2000::/3, RFC 4291): ipaddr.js calls all of ::/8 "unicast",
  // including IPv4-compatible addresses (::7f00:1 is how WHATWG URL writes [::127.0.0.1]), which reach the
  // embedded IPv4 address on a host with an automatic tunnel.
  if (ip.kind() === "ipv6" && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return false;
  return ip.range() === "unicast";
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

const BLOCKED = "ESSRFBLOCKED";

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The lookup undici's connector hands to net/tls.connect: the addresses it checks are the very addresses the
 * socket then connects to, so a DNS answer that changes between a check and the connection (rebinding) cannot
 * slip through. net.connect skips lookup for literal IPs: callers check those with `literalIp` first.
 */
function guardedLookup(allow: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !allow(a.address));
      if (refused || addresses.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to a non-public address`);
        e.code = BLOCKED;
        return callback(e, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** An undici Agent that connects only to addresses `allow` accepts (names checked as they resolve). */
export function guardedAgent(allow: AddressPolicy, options: Agent.Options = {}): Agent {
  const connect = typeof options.connect === "object" ? options.connect : {};
  return new Agent({ ...options, connect: { ...connect, lookup: guardedLookup(allow) } });
}

/** The URL's host is a literal IP that `allow` refuses (names are checked by `guardedAgent` as they resolve). */
export function refusedLiteral(url: URL, allow: AddressPolicy): boolean {
  const ip = literalIp(url.hostname);
  return ip !== null && !allow(ip);
}

/** The request failed because `guardedAgent` refused the address a name resolved to. */
export function isBlockedAddress(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if ((e as NodeJS.ErrnoException).code === BLOCKED) return true;
    // Happy-eyeballs connection attempts report an AggregateError holding each attempt's error.
    if (e instanceof AggregateError && e.errors.some(isBlockedAddress)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
