/**
 * How many recipients a campaign may hand over now (spec 8: batch mode, `send_over_hours`), and when to look at
 * it again when none. Pure: times are epoch milliseconds, hours last `hourMs` (tests shorten them).
 */
export interface PacingInput {
  now: number;
  total: number;
  dispatched: number;
  batchSize: number | null;
  batchIntervalHours: number | null;
  currentBatch: number;
  sendOverHours: number | null;
  startedAt: number | null;
  lastDispatchAt: number | null;
  hourMs: number;
  /** The dispatcher's period: a paced campaign is owed at most two of them after a stop. */
  tickMs: number;
}

export interface Pace {
  /** Recipients it may hand over now (before the cycle's and the rate's own caps). */
  budget: number;
  /** Batch mode: the batch those recipients belong to. */
  currentBatch: number;
  /** When nothing is owed now: when the next recipient is. */
  wakeAt: number | null;
}

/** The number of batches a batch-mode campaign sends (0 without batch mode: spec 4.8's `totalBatches`). */
export const totalBatches = (total: number, batchSize: number | null): number =>
  batchSize ? Math.ceil(total / batchSize) : 0;

export function pace(p: PacingInput): Pace {
  const remaining = Math.max(0, p.total - p.dispatched);
  if (p.batchSize) {
    // Batch k holds the recipients dispatched k-1 batches in. A batch still being handed over (a cycle holds at
    // most 500, and the rate may cap it) goes on; a finished one was followed by its interval (next_dispatch_at,
    // which the dispatcher waits for before it gets here): the next one starts.
    const inBatch = p.currentBatch * p.batchSize - p.dispatched;
    if (inBatch > 0)
      return { budget: Math.min(inBatch, remaining), currentBatch: p.currentBatch, wakeAt: null };
    return { budget: Math.min(p.batchSize, remaining), currentBatch: p.currentBatch + 1, wakeAt: null };
  }
  if (p.sendOverHours) {
    const deadline = (p.startedAt ?? p.now) + p.sendOverHours * p.hourMs;
    if (p.now >= deadline || remaining === 0) return { budget: remaining, currentBatch: 0, wakeAt: null };
    // The remaining recipients spread evenly over the remaining time, recomputed every cycle from what is left:
    // time spent paused or rate-limited is not owed as a burst (at most two periods' worth is), it raises the
    // pace of what follows instead.
    const perRecipient = (deadline - p.now) / remaining;
    const since = p.lastDispatchAt ?? p.now - p.tickMs;
    const elapsed = Math.min(p.now - since, Math.max(2 * p.tickMs, perRecipient));
    const span = deadline - (p.now - elapsed);
    const owed = Math.floor((remaining * elapsed) / span);
    if (owed > 0) return { budget: owed, currentBatch: 0, wakeAt: null };
    return { budget: 0, currentBatch: 0, wakeAt: p.now - elapsed + span / remaining };
  }
  return { budget: remaining, currentBatch: 0, wakeAt: null };
}

/**
 * What a paced campaign's clock reads after handing over `sent` of what it was owed: it moves on by the time those
 * recipients were worth, so a cycle capped below what was owed (500 a cycle, the rate) leaves the rest owed.
 */
export function pacedClock(p: PacingInput, sent: number): number {
  if (!p.sendOverHours) return p.now;
  const deadline = (p.startedAt ?? p.now) + p.sendOverHours * p.hourMs;
  const remaining = Math.max(0, p.total - p.dispatched);
  if (p.now >= deadline || remaining === 0) return p.now;
  const perRecipient = (deadline - p.now) / remaining;
  const since = p.lastDispatchAt ?? p.now - p.tickMs;
  const elapsed = Math.min(p.now - since, Math.max(2 * p.tickMs, perRecipient));
  const start = p.now - elapsed;
  return Math.min(p.now, start + (sent * (deadline - start)) / remaining);
}

/** Batch mode: whether handing over `sent` more finishes the current batch (its interval then starts). */
export const batchFinished = (p: PacingInput, pace: Pace, sent: number): boolean =>
  p.batchSize !== null && p.dispatched + sent >= pace.currentBatch * p.batchSize;
