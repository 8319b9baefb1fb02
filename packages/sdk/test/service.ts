// The real public-api for the SDK's tests: its main.ts as a child process on this package's own PostgreSQL
// database and RabbitMQ vhost (the jest preset's), Redis; a project with a verified sender made through the admin
// API. Shared by public-api.int.test.ts and readme.int.test.ts.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { createDb, type Db } from "@emailsvc/db";
import { freePort, spawnTs, waitFor } from "@emailsvc/testing";

const root = path.resolve(__dirname, "../../..");
const ADMIN_TOKEN = "admin-token-for-sdk-tests-0123456789";

export interface Service {
  apiUrl: string;
  db: Db;
  project: { id: string; testKey: string; liveKey: string; sender: string };
  admin(method: string, route: string, body?: unknown): Promise<any>;
  stop(): Promise<void>;
}

export async function startService(): Promise<Service> {
  let output = "";
  async function admin(method: string, route: string, body?: unknown): Promise<any> {
    const res = await fetch(`${adminUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`admin ${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  const [port, internalPort] = [await freePort(), await freePort()];
  const apiUrl = `http://127.0.0.1:${port}`;
  const adminUrl = `http://127.0.0.1:${internalPort}/admin`;
  const api: ChildProcess = spawnTs("apps/public-api/src/main.ts", {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "test",
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      INTERNAL_PORT: String(internalPort),
      DATABASE_URL: process.env.DATABASE_URL!,
      DATABASE_POOL_MAX: "5",
      RABBITMQ_URL: process.env.RABBITMQ_URL!,
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0",
      API_KEY_ENCRYPTION_KEY: "5d".repeat(32),
      ADMIN_TOKEN,
      INTERNAL_TOKEN: "internal-token-for-sdk-tests-0123456789ab",
      TRACKING_SECRET: "tracking-secret-for-sdk-tests",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      INBOUND_DOMAIN: "inbound.example.test",
      PUBLIC_BASE_URL: apiUrl,
      OUTBOX_RELAY_INTERVAL_MS: "200",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-20_000));
  api.stdout!.on("data", keep);
  api.stderr!.on("data", keep);
  await waitFor(
    async () => {
      if (api.exitCode !== null) throw new Error(`public-api exited:\n${output}`);
      return (await fetch(`${apiUrl}/readyz`).catch(() => null))?.ok;
    },
    90_000,
    "public-api ready",
    250,
  );
  const db: Db = createDb(process.env.DATABASE_URL!, { max: 2 });

  const created = await admin("POST", "/projects", { name: "sdk integration" });
  const id = created.project.id as string;
  const sender = `hello@sdk-${id.slice(0, 8)}.example.com`;
  await admin("POST", `/projects/${id}/senders`, { email: sender, name: "SDK Shop" });
  const project: Service["project"] = { id, testKey: created.test_key, liveKey: created.live_key, sender };

  return {
    apiUrl,
    db,
    project,
    admin,
    async stop() {
      await db?.close();
      if (api && api.exitCode === null) {
        const gone = once(api, "exit");
        api.kill("SIGTERM");
        await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
        if (api.exitCode === null) api.kill("SIGKILL");
      }
    },
  };
}
