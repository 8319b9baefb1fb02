/**
 * Keeps one tenant's slow webhook receiver from taking every delivery slot. The dispatcher's slots (its prefetch,
 * 50) are shared by all projects, and an attempt may hang for the whole 10 s timeout: a project whose receiver
 * hangs used to fill every slot with its own backlog, and every other project's webhooks waited behind it.
 *
 * A destination (project and mode, since live and test have their own URLs) turns slow when one of its attempts
 * takes `slowMs` or more (finished, or still running), and stays slow until FAST_TO_RECOVER attempts in a row
 * were faster: a receiver that hangs on some requests and fails fast on others stays limited. A slow destination
 * may have at most `slowLimit` attempts in flight in this process; `admit` refuses the rest (the consumer defers
 * them: they come back later without using up an attempt). Fast receivers are never limited, so a single busy
 * project still gets every slot. A destination with nothing in flight for IDLE_MS is forgotten.
 */
export interface SlowReceiverGate {
  /** A release function to call when the attempt ends, or null when the destination has its share in flight. */
  admit(projectId: string, isTest: boolean, kind?: "outbound" | "inbound"): (() => void) | null;
}

/** Fast attempts in a row that make a slow destination fast again. */
export const FAST_TO_RECOVER = 3;
const IDLE_MS = 10 * 60_000;

interface Destination {
  /** start time of each attempt in flight */
  running: Map<number, number>;
  slow: boolean;
  fastInARow: number;
  lastDone: number;
}

export function createSlowReceiverGate(opts: { slowMs: number; slowLimit: number }): SlowReceiverGate {
  const destinations = new Map<string, Destination>();
  let seq = 0;
  const runningLong = (d: Destination, now: number): boolean => {
    for (const started of d.running.values()) if (now - started >= opts.slowMs) return true;
    return false;
  };
  const sweep = (now: number): void => {
    for (const [key, d] of destinations)
      if (!d.running.size && now - d.lastDone > IDLE_MS) destinations.delete(key);
  };
  let lastSweep = Date.now();
  return {
    admit(projectId, isTest, kind = "outbound") {
      const now = Date.now();
      if (now - lastSweep > IDLE_MS) {
        lastSweep = now;
        sweep(now);
      }
      const key = `${projectId}:${isTest ? "test" : "live"}${kind === "inbound" ? ":inbound" : ""}`;
      let d = destinations.get(key);
      if (!d) {
        d = { running: new Map(), slow: false, fastInARow: 0, lastDone: now };
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
        dest.lastDone = Date.now();
        if (dest.lastDone - started >= opts.slowMs) {
          dest.slow = true;
          dest.fastInARow = 0;
        } else if (dest.slow && ++dest.fastInARow >= FAST_TO_RECOVER) {
          dest.slow = false;
        }
        if (!dest.slow && dest.running.size === 0) destinations.delete(key);
      };
    },
  };
}
