import { AsyncLocalStorage } from "node:async_hooks";

/** Per-request (or per-message) ids carried implicitly into every log line. */
export interface RequestContext {
  requestId: string;
  correlationId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}
