import { messagingTopology } from "@emailsvc/contracts";
import { createDb, type Db } from "@emailsvc/db";
import { type ReadinessCheck } from "@emailsvc/http";
import { createBroker, type Broker } from "@emailsvc/messaging";
import type { Topology } from "@emailsvc/contracts";
import { createLogger, createMetrics, type Logger, type Metrics } from "@emailsvc/observability";
import type { BaseEnv } from "./base-env";

/** What every service is built from; each service's deps.ts adds its own clients on top. */
export interface BaseDeps {
  name: string;
  logger: Logger;
  metrics: Metrics;
  db: Db;
  broker: Broker;
}

export async function createBaseDeps(
  name: string,
  env: BaseEnv,
  opts: { logger?: Logger; topology?: Topology; db?: { planEachCall?: boolean } } = {},
): Promise<BaseDeps> {
  const logger = opts.logger ?? createLogger({ service: name, level: env.LOG_LEVEL });
  const metrics = createMetrics(name);
  const db = createDb(env.DATABASE_URL, { max: env.DATABASE_POOL_MAX, ...opts.db });
  // Every service declares the whole catalogue (idempotent), so start-up order never matters.
  const broker = createBroker({
    url: env.RABBITMQ_URL,
    logger,
    name,
    topology: opts.topology ?? messagingTopology,
  });
  return { name, logger, metrics, db, broker };
}

/** /readyz: the database answers and the broker is connected with its topology declared. */
export function baseReadiness(deps: Pick<BaseDeps, "db" | "broker">): ReadinessCheck[] {
  return [
    {
      name: "database",
      check: async () => {
        await deps.db.pool.query("SELECT 1");
        return true;
      },
    },
    { name: "broker", check: () => deps.broker.isReady() },
  ];
}
