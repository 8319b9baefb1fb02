/**
 * shop-ingest as main.ts builds it, on this package's own PostgreSQL database and RabbitMQ vhost: the receiver
 * (through supertest), the outbox relay, the three topic consumers, and abandoned-cart loops the tests tick.
 * For the SIGKILL test, `spawnShopIngest` runs the real main.ts as a child process.
 */
import type { ProjectId } from "@emailsvc/contracts";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Express } from "express";
import { connectShop, createProject, type Db, type ShopSettings } from "@emailsvc/db";
import type { ConsumerHandle } from "@emailsvc/messaging";
import { freePort, projectFactory, spawnTs, stopEvery, type TestProject, waitFor } from "@emailsvc/testing";
export { freePort };
import { startAbandonedCartLoop } from "../src/abandoned-cart/abandoned-cart-loop";
import { createApp } from "../src/app";
import { createDeps, type Deps } from "../src/deps";
import { readEnv } from "../src/env";
import { shopConsumers } from "../src/processing/shop.consumers";

export const ENCRYPTION_KEY = "ab".repeat(32);
const root = path.resolve(__dirname, "../../..");
export const CORPUS = path.resolve(root, "../shared/corpus/shop");

export const corpus = (
  name: "carts-update" | "checkouts-create" | "orders-create",
): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(CORPUS, `shopify_python_api.${name}.json`), "utf8"));

export function testEnvVars(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    API_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
    OUTBOX_RELAY_INTERVAL_MS: "100",
    SHOP_STEP_UNIT_SECONDS: "1",
    SHOP_CACHE_MS: "0",
    SHOP_TIMER_INTERVAL_MS: "3600000",
    ...extra,
  };
}

export interface Harness {
  deps: Deps;
  app: Express;
  /** A loop of its own, as another replica's would be (the tests call tick()). */
  loop(): ReturnType<typeof startAbandonedCartLoop>;
  makeProject(): Promise<TestProject<ProjectId>>;
  connect(
    projectId: ProjectId,
    domain: string,
    settings?: ShopSettings & { secret?: string | null },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startHarness(extra: Record<string, string> = {}): Promise<Harness> {
  const env = readEnv(testEnvVars(extra));
  const deps = await createDeps(env);
  await deps.broker.ready();
  const consumers: ConsumerHandle[] = [];
  for (const c of shopConsumers({
    db: deps.db,
    logger: deps.logger,
    stepUnitSeconds: env.SHOP_STEP_UNIT_SECONDS,
    batch: env.SHOP_BATCH,
  }))
    consumers.push(await deps.broker.consume(c, { prefetch: 20 }));
  const loops: ReturnType<typeof startAbandonedCartLoop>[] = [];
  return {
    deps,
    app: createApp(deps),
    loop() {
      const l = startAbandonedCartLoop({
        db: deps.db,
        templateCache: deps.templateCache,
        logger: deps.logger,
        intervalMs: 3_600_000,
        batch: 10,
        claimSeconds: 300,
        unitSeconds: env.SHOP_STEP_UNIT_SECONDS,
        tickAtStart: false,
      });
      loops.push(l);
      return l;
    },
    makeProject: () =>
      projectFactory({
        db: deps.db,
        createProject,
        addVerifiedSender: (db: Db, projectId, email) =>
          db.prisma.senderProfile.create({
            data: { projectId, senderEmail: email, senderName: "Shop", emailVerified: true, active: true },
          }),
        encryptionKey: ENCRYPTION_KEY,
      })(),
    async connect(projectId, domain, settings = {}) {
      const shop = await connectShop(
        deps.db,
        projectId,
        { shop_domain: domain, ...settings },
        ENCRYPTION_KEY,
      );
      if (!shop) throw new Error(`${domain} is already connected`);
      return shop.id;
    },
    // every part stopped even when one fails or hangs: one left running took the next test file's messages
    close: () =>
      stopEvery([
        ...loops.map((l) => () => l.stop()),
        ...consumers.map((c) => () => c.close()),
        () => deps.outbox.stop(),
        () => deps.receiverDb.close(),
        () => deps.broker.close(),
        () => deps.db.close(),
      ]),
  };
}

/**
 * The real `apps/shop-ingest/src/main.ts` as a child process (processing in its worker thread, as deployed), ready
 * when its /readyz answers. `exited` resolves with its exit code (null when a signal killed it).
 */
export async function spawnShopIngest(
  extra: Record<string, string>,
): Promise<{ proc: ChildProcess; exited: Promise<number | null>; port: number }> {
  const port = await freePort();
  const logDir = path.join(root, ".local", `test-shop-${process.env.TEST_RUN_ID ?? "run"}`);
  fs.mkdirSync(logDir, { recursive: true });
  const out = fs.openSync(path.join(logDir, "shop-ingest.log"), "a");
  const proc = spawnTs("apps/shop-ingest/src/main.ts", {
    cwd: root,
    env: { ...testEnvVars(extra), PORT: String(port), LOG_LEVEL: "info" },
    stdio: ["ignore", out, out],
  });
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`shop-ingest exited (${proc.exitCode}); see ${logDir}`);
      return fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    60_000,
    "shop-ingest to be ready",
    200,
  );
  return { proc, exited, port };
}
