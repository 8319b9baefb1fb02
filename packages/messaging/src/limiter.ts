/** Counting semaphore: at most `max` holders at once, waiters served in arrival order. */
export interface Limiter {
  acquire(): Promise<() => void>;
}

export function createLimiter(max: number): Limiter {
  if (!Number.isInteger(max) || max < 1)
    throw new Error(`concurrency must be a positive integer, got ${max}`);
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return {
    acquire() {
      if (active < max) {
        active++;
        return Promise.resolve(once(release));
      }
      // The slot passes straight to the waiter: `active` is unchanged.
      return new Promise((resolve) => waiting.push(() => resolve(once(release))));
    },
  };
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
