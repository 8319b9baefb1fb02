import type { ProjectId } from "@emailsvc/contracts";
/**
 * Keeps a receiver that is down (or failing) from costing an attempt per event per retry. Without it, every event
 * of a project whose receiver refuses connections, times out or answers 5xx made its five attempts, each an HTTP
 * request, an attempt row and a trip through a retry queue, however many events were failing the same way.
 *
 * A destination (project and mode: live and test have their own URLs) turns failing after `failAfter` attempts
 * in a row that did not reach it (refused, timed out, 5xx). While failing, one attempt at a time is let through,
 * as a probe, and only once the probe wait has passed (`probeMs`: the n-th failed probe in a row waits the n-th
 * entry, the last one repeating); every other event is refused here, and the consumer defers it (it comes back
 * after the queue's growing `deferMs` without using up an attempt). A probe is a real attempt of a real delivery:
 * it is logged like any other and counts towards that delivery's five, so no delivery is dropped and each still
 * gets its five attempts, only later. The first attempt that reaches the receiver (any answer below 500) ends the
 * failing state: normal delivery resumes, and the deferred events come back within their current wait.
 *
 * The state is kept per process (each replica finds out on its own after `failAfter` attempts); `onChange`
 * records it on the project, where the admin API shows it.
 */
export type AttemptOutcome =
  /** the receiver answered (any status below 500) */
  | "reached"
  /** refused, reset, timed out, or a 5xx */
  | "unreachable"
  /** no HTTP attempt was made (already final, no URL, refused address, no key) */
  | "none";

export interface FailingReceivers {
  /**
   * A function to report the attempt's outcome with (call it once, also when no attempt was made), or null when
   * the destination is failing and this event must wait: a probe is in flight or not yet due.
   */
  admit(
    projectId: ProjectId,
    isTest: boolean,
    kind?: "outbound" | "inbound",
  ): ((outcome: AttemptOutcome) => void) | null;
  /** Destinations failing now, in this process. */
  failingCount(): number;
}

export interface FailingReceiversOptions {
  /** Unreachable attempts in a row that make a destination failing. */
  failAfter: number;
  /** Waits before each probe after a failed one: the n-th failed probe in a row waits the n-th (the last repeats). */
  probeMs: readonly number[];
  /** Called when a destination turns failing (true) or recovers (false); errors are the callee's to handle. */
  onChange?: (projectId: ProjectId, isTest: boolean, failing: boolean, kind: "outbound" | "inbound") => void;
}

interface Destination {
  /** unreachable attempts in a row */
  fails: number;
  failing: boolean;
  probing: boolean;
  /** failed probes in a row */
  failedProbes: number;
  nextProbeAt: number;
}

export function createFailingReceivers(opts: FailingReceiversOptions): FailingReceivers {
  const destinations = new Map<string, Destination>();
  let failing = 0;
  const probeWait = (n: number) => opts.probeMs[Math.min(n, opts.probeMs.length) - 1] ?? 0;
  return {
    failingCount: () => failing,
    admit(projectId, isTest, kind = "outbound") {
      // the reply URLs are another receiver than the event URLs: each pair has its own state
      const key = `${projectId}:${isTest ? "test" : "live"}${kind === "inbound" ? ":inbound" : ""}`;
      const now = Date.now();
      const found = destinations.get(key);
      let probe = false;
      if (found?.failing) {
        if (found.probing || now < found.nextProbeAt) return null;
        found.probing = true;
        probe = true;
      }
      let reported = false;
      return (outcome) => {
        if (reported) return;
        reported = true;
        let d = destinations.get(key);
        if (probe && d) d.probing = false;
        if (outcome === "none") return;
        if (outcome === "reached") {
          if (!d) return;
          destinations.delete(key);
          if (d.failing) {
            failing--;
            opts.onChange?.(projectId, isTest, false, kind);
          }
          return;
        }
        if (!d) {
          d = { fails: 0, failing: false, probing: false, failedProbes: 0, nextProbeAt: 0 };
          destinations.set(key, d);
        }
        d.fails++;
        if (d.failing) {
          // a probe (or an attempt admitted before the flip) failed: the next probe waits longer
          if (probe) d.failedProbes++;
          d.nextProbeAt = Date.now() + probeWait(d.failedProbes + 1);
        } else if (d.fails >= opts.failAfter) {
          d.failing = true;
          d.failedProbes = 0;
          d.nextProbeAt = Date.now() + probeWait(1);
          failing++;
          opts.onChange?.(projectId, isTest, true, kind);
        }
      };
    },
  };
}
