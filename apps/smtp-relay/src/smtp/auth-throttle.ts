import { createHash } from "node:crypto";

/**
 * Failed AUTH attempts counted over a sliding window, in this replica's memory, in two kinds of bucket: past
 * `maxFailures` in `windowMs` in either, AUTH is refused (454 4.7.0) until old failures age out.
 *
 * - **Per client IP address**: one source guessing keys, whatever usernames and passwords it tries.
 * - **Per username, with the password it failed with** (`(username, sha256(password))`): one credential failing
 *   from many addresses — a fleet of WordPress sites still holding a revoked key, or a guesser spread over many
 *   IPs replaying it — is throttled wherever it comes from.
 *
 * Not per username alone: the username is not an identity here (the password, an API key, is; clients send
 * `apikey` or anything), so a bucket per username would let anyone lock every client that uses the conventional
 * `apikey` out with a few bad passwords from a few addresses. A bucket holding the password too can only be
 * filled by failing with that exact password, which a working key never does: nobody can lock a valid key out.
 * Only the hash is kept, never the password. A guesser spread over many replicas gets `maxFailures` per replica;
 * the keys are 256-bit random, so this limits noise, log volume and lookups rather than making guessing feasible.
 */
export interface AuthAttemptKey {
  ip: string;
  username: string;
  password: string;
}

export interface AuthThrottle {
  blocked(attempt: AuthAttemptKey): boolean;
  failed(attempt: AuthAttemptKey): void;
}

const credentialBucket = (a: AuthAttemptKey): string =>
  `cred:${createHash("sha256").update(a.username.toLowerCase()).update("\0").update(a.password).digest("hex")}`;

export function createAuthThrottle(opts: {
  maxFailures: number;
  windowMs: number;
  now?: () => number;
}): AuthThrottle {
  const now = opts.now ?? Date.now;
  const failures = new Map<string, number[]>();
  const recent = (bucket: string): number[] => {
    const since = now() - opts.windowMs;
    const kept = (failures.get(bucket) ?? []).filter((t) => t > since);
    if (kept.length) failures.set(bucket, kept);
    else failures.delete(bucket);
    return kept;
  };
  const buckets = (a: AuthAttemptKey) => [`ip:${a.ip}`, credentialBucket(a)];
  // Buckets with old failures only are dropped when next looked at; a sweep drops those never looked at again,
  // so a guesser's one-off credentials do not grow the map for ever.
  let lastSweep = now();
  const sweep = () => {
    if (now() - lastSweep < opts.windowMs) return;
    lastSweep = now();
    for (const bucket of [...failures.keys()]) recent(bucket);
  };
  return {
    blocked: (a) => buckets(a).some((b) => recent(b).length >= opts.maxFailures),
    failed: (a) => {
      sweep();
      for (const b of buckets(a)) failures.set(b, [...recent(b), now()].slice(-opts.maxFailures));
    },
  };
}
