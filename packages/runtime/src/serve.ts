import type { Express } from "express";
import { createLifecycle, type Lifecycle } from "@emailsvc/http";
import type { BaseDeps } from "./base-deps";
import type { BaseEnv } from "./base-env";

export interface ServeOptions {
  deps: BaseDeps;
  env: BaseEnv;
  /** Public port app (health, readiness, metrics and the service's public routes). */
  app: Express;
  /** Cluster-only routes on INTERNAL_PORT (never routed by the gateway). */
  internalApp?: Express;
  /** Stop taking work (consumers, pollers) — run right after the HTTP servers close, before the broker/DB. */
  stopWork?: () => Promise<unknown>;
}

/**
 * Listens and wires graceful shutdown in the order STYLE.md asks for: stop HTTP intake and consumers, let
 * in-flight work finish, then close the broker (publishers, consumers, connection) and finally the DB pool.
 */
export async function serve(opts: ServeOptions, lifecycle?: Lifecycle): Promise<Lifecycle> {
  const { deps, env } = opts;
  const lc = lifecycle ?? createLifecycle({ logger: deps.logger, timeoutMs: env.SHUTDOWN_TIMEOUT_MS });
  await lc.listen(opts.app, env.PORT, env.HOST);
  if (opts.internalApp && env.INTERNAL_PORT) await lc.listen(opts.internalApp, env.INTERNAL_PORT, env.HOST);
  if (opts.stopWork) lc.onShutdown("work", opts.stopWork);
  lc.onShutdown("broker", () => deps.broker.close());
  lc.onShutdown("database", () => deps.db.close());
  lc.installSignalHandlers();
  return lc;
}
