/**
 * Work on a large batch (12,500 recipients) done a slice at a time, giving the event loop back in between, so
 * health checks and other requests are answered while a batch is accepted instead of after it.
 */
export const SLICE = 2_000;

/** Resolves on the event loop's next turn (after pending I/O callbacks). */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** `JSON.stringify(values)` (the same text), SLICE elements per event-loop turn. */
export async function jsonArrayInSlices(values: readonly unknown[]): Promise<string> {
  if (values.length <= SLICE) return JSON.stringify(values);
  const parts: string[] = [];
  for (let i = 0; i < values.length; i += SLICE) {
    if (i > 0) await nextTurn();
    // An array's text without its brackets; a slice is never empty here.
    parts.push(JSON.stringify(values.slice(i, i + SLICE)).slice(1, -1));
  }
  return `[${parts.join(",")}]`;
}
