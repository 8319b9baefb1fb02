import type { Express } from "express";
import { createLifecycle, runMain, type Lifecycle } from "@emailsvc/http";
import type { BaseDeps } from "./base-deps";
import type { BaseEnv } from "./base-env";
import { serve } from "./serve";

export interface ServiceDefinition<E extends BaseEnv, D extends BaseDeps> {
  readEnv: () => E;
  createDeps: (env: E) => Promise<D>;
  createApp: (deps: D, lifecycle: Lifecycle) => Express;
  createInternalApp?: (deps: D, lifecycle: Lifecycle) => Express;
  /** Starts consumers / pollers; returns the function that stops them (awaiting in-flight work). */
  startWork?: (deps: D, env: E) => Promise<() => Promise<unknown>>;
}

/** A service's whole main(): env → deps → HTTP servers → background work → graceful shutdown on SIGTERM. */
export function runService<E extends BaseEnv, D extends BaseDeps>(def: ServiceDefinition<E, D>): void {
  runMain(async () => {
    const env = def.readEnv();
    const deps = await def.createDeps(env);
    const lifecycle = createLifecycle({ logger: deps.logger, timeoutMs: env.SHUTDOWN_TIMEOUT_MS });
    let stopWork: (() => Promise<unknown>) | undefined;
    await serve(
      {
        deps,
        env,
        app: def.createApp(deps, lifecycle),
        ...(def.createInternalApp ? { internalApp: def.createInternalApp(deps, lifecycle) } : {}),
        stopWork: async () => stopWork?.(),
      },
      lifecycle,
    );
    await deps.broker.ready();
    if (def.startWork) stopWork = await def.startWork(deps, env);
    deps.logger.info("service started");
  });
}
