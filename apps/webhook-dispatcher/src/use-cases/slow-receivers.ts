/**
 * Keeps one tenant's slow webhook receiver from taking every delivery slot. The dispatcher's slots (its prefetch,
 * 50) are shared by all projects, and an attempt may hang for the whole 10 s timeout: a project whose receiver
 * hangs used to fill every slot with its own backlog, and every other project's webhooks waited behind it.
 *
 * A destination (project and mode, since live and test have their own URLs) counts as slow while its last
 * finished attempt took `slowMs` or more, or while one of its attempts has been running that long. A slow
 * destination may have at most `slowLimit` attempts in flight in this process; `admit` refuses the rest (the
 * consumer defers them: they come back later without using up an attempt). A fast attempt ends the slowness.
 * Fast receivers are never limited, so a single busy project still gets every slot.
 */
export interface SlowReceiverGate {
  /** A release function to call when the attempt ends, or null when the destination has its share in flight. */
  admit(projectId: string, isTest: boolean): (() => void) | null;
}

interface Destination {
  /** start time of each attempt in flight */
  running: Map<number, number>;
  slow: boolean;
}

export function createSlowReceiverGate(opts: { slowMs: number; slowLimit: number }): SlowReceiverGate {
  const destinations = new Map<string, Destination>();
  let seq = 0;
  const runningLong = (d: Destination, now: number): boolean => {
    for (const started of d.running.values()) if (now - started >= opts.slowMs) return true;
    return false;
  };
  return {
    admit(projectId, isTest) {
      const key = `${projectId}:${isTest ? "test" : "live"}`;
      let d = destinations.get(key);
      const now = Date.now();
      if (!d) {
        d = { running: new Map(), slow: false };
        destinations.set(key, d);
      } else if (d.running.size >= opts.slowLimit && (d.slow || runningLong(d, now))) {
        return null;
      }
      const dest = d;
      const token = ++seq;
      dest.running.set(token, now);
      return () => {
        const started = dest.running.get(token);
        if (started === undefined) return;
        dest.running.delete(token);
        dest.slow = Date.now() - started >= opts.slowMs;
        if (!dest.slow && dest.running.size === 0) destinations.delete(key);
      };
    },
  };
}
