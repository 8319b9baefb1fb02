// The real stack for campaign tests: public-api (its admin API and /v1), send-worker, notification-ingest and any
// number of campaign-dispatcher replicas, each its own process (so a test can SIGKILL one), on this package's own
// PostgreSQL database and RabbitMQ vhost (the jest preset's), Redis, and the provider simulator in-process (its
// SNS notifications go to notification-ingest). Nothing is faked.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createDb, type Db } from "@emailsvc/db";
import { createSimulator, type Simulator } from "@emailsvc/provider-simulator";
import { freePort, spawnTs, sleep, waitFor } from "@emailsvc/testing";

const root = path.resolve(__dirname, "../../..");
export const ADMIN_TOKEN = "admin-token-for-campaign-tests-0123";
export const TRACKING_SECRET = "tracking-secret-for-campaign-tests";
export const INTERNAL_TOKEN = "internal-token-for-campaign-tests-0123456789";

export interface Service {
  name: string;
  port: number;
  internalPort?: number;
  proc: ChildProcess;
  output: () => string;
}

export interface Stack {
  db: Db;
  sim: Simulator;
  simUrl: string;
  adminUrl: string;
  apiUrl: string;
  ingestUrl: string;
  dispatchers: Service[];
  /** The send-worker (its output, for a failing test's message). */
  worker: Service;
  /** Starts one more dispatcher replica (waits until it is ready). */
  startDispatcher(env?: Record<string, string>): Promise<Service>;
  /** SIGKILLs a service and waits for it to be gone. */
  kill(s: Service): Promise<void>;
  /** Admin API call: JSON in, { status, body } out. */
  admin(method: string, route: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** POST /trigger-campaign on a dispatcher's internal port, with the internal token (`headers` replace it). */
  trigger(
    body: unknown,
    via?: Service,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export interface StackOptions {
  dispatchers?: number;
  /** Every service's env (e.g. SEND_RATE_PER_SECOND, CAMPAIGN_HOUR_MS). */
  env?: Record<string, string>;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const db = createDb(process.env.DATABASE_URL!, { max: 10 });
  // this package's database is shared by its test files: campaigns an earlier file left unfinished (a failed
  // test) must not be dispatched by this stack
  await db.pool.query(
    "UPDATE campaigns SET status = 'cancelled' WHERE status NOT IN ('completed', 'failed', 'cancelled')",
  );
  const [apiPort, adminPort, workerPort, ingestPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const ingestUrl = `http://127.0.0.1:${ingestPort}`;
  const sim = createSimulator({
    port: 0,
    notificationUrl: `${ingestUrl}/webhooks/provider`,
    logLevel: "warn",
  });
  const simUrl = await sim.start();
  const common: Record<string, string> = {
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
    HOST: "127.0.0.1",
    DATABASE_URL: process.env.DATABASE_URL!,
    DATABASE_POOL_MAX: "8",
    RABBITMQ_URL: process.env.RABBITMQ_URL!,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0",
    API_KEY_ENCRYPTION_KEY: "cd".repeat(32),
    TRACKING_SECRET,
    ADMIN_TOKEN,
    INTERNAL_TOKEN,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    SES_ENDPOINT: simUrl,
    INBOUND_DOMAIN: "inbound.example.test",
    PUBLIC_BASE_URL: ingestUrl,
    SNS_CERT_HOST_PATTERN: "^127\\.0\\.0\\.1$",
    SNS_ALLOW_HTTP_CERT_URLS: "true",
    SNS_ALLOW_ANY_TOPIC: "true",
    // this stack's own global rate (Redis is shared with whatever else runs on the machine)
    SEND_RATE_KEY: `campaign-test:${randomUUID()}`,
    SEND_RATE_PER_SECOND: "0",
    OUTBOX_RELAY_INTERVAL_MS: "200",
    CAMPAIGN_DISPATCH_INTERVAL_MS: "500",
    ...opts.env,
  };
  const services: Service[] = [];
  function start(name: string, port: number, env: Record<string, string>, internalPort?: number): Service {
    let out = "";
    // node itself with tsx's loader, not the tsx CLI: the CLI runs main.ts in a child of its own, which a SIGKILL
    // of the CLI left running (the killed-dispatcher test then killed only the launcher, and the dispatchers it
    // meant to kill kept running after the test run, holding its output pipe)
    const proc = spawnTs(`apps/${name}/src/main.ts`, {
      cwd: root,
      env: {
        ...process.env,
        ...common,
        ...env,
        PORT: String(port),
        ...(internalPort ? { INTERNAL_PORT: String(internalPort) } : {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const keep = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));
    proc.stdout!.on("data", keep);
    proc.stderr!.on("data", keep);
    const s: Service = { name, port, proc, output: () => out, ...(internalPort ? { internalPort } : {}) };
    services.push(s);
    return s;
  }
  async function ready(s: Service): Promise<void> {
    await waitFor(
      async () => {
        if (s.proc.exitCode !== null) throw new Error(`${s.name} exited:\n${s.output()}`);
        return (await fetch(`http://127.0.0.1:${s.port}/readyz`).catch(() => null))?.ok;
      },
      120_000,
      `${s.name} ready`,
      250,
    );
  }
  const api = start("public-api", apiPort, {}, adminPort);
  const ingest = start("notification-ingest", ingestPort, {});
  const worker = start("send-worker", workerPort, {});
  await Promise.all([api, ingest, worker].map(ready));

  const dispatchers: Service[] = [];
  async function startDispatcher(env: Record<string, string> = {}): Promise<Service> {
    const s = start("campaign-dispatcher", await freePort(), env, await freePort());
    await ready(s);
    dispatchers.push(s);
    return s;
  }
  for (let i = 0; i < (opts.dispatchers ?? 1); i++) await startDispatcher();

  const adminUrl = `http://127.0.0.1:${adminPort}/admin`;
  return {
    db,
    sim,
    simUrl,
    adminUrl,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    ingestUrl,
    dispatchers,
    worker,
    startDispatcher,
    async kill(s) {
      if (s.proc.exitCode !== null || s.proc.signalCode) return;
      const gone = new Promise((r) => s.proc.once("exit", r));
      s.proc.kill("SIGKILL");
      await gone;
      dispatchers.splice(dispatchers.indexOf(s), 1);
    },
    async admin(method, route, body) {
      const res = await fetch(`${adminUrl}${route}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async trigger(body, via, headers = { "x-internal-token": INTERNAL_TOKEN }) {
      const d = via ?? dispatchers[0]!;
      const res = await fetch(`http://127.0.0.1:${d.internalPort}/trigger-campaign`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    async close() {
      // the simulator's notifications delivered first (with notification-ingest still up): a notification left to
      // retry would keep its timer, and this process, alive long after the test
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([sim.flushNotifications(), new Promise((r) => (timer = setTimeout(r, 10_000)))]);
      clearTimeout(timer);
      await sim.stop();
      for (const s of [...services].reverse())
        if (s.proc.exitCode === null && !s.proc.signalCode) s.proc.kill("SIGTERM");
      await Promise.race([
        Promise.all(
          services.map((s) =>
            s.proc.exitCode !== null || s.proc.signalCode ? null : new Promise((r) => s.proc.once("exit", r)),
          ),
        ),
        sleep(15_000),
      ]);
      for (const s of services) if (s.proc.exitCode === null && !s.proc.signalCode) s.proc.kill("SIGKILL");
      await db.close();
    },
  };
}

export interface TestProject {
  projectId: string;
  liveKey: string;
  sender: string;
  domain: string;
}

/**
 * A project as a campaign needs it: created through the admin API with a postal address, its sender verified, and
 * the sender's domain registered, verified and DKIM-signed (the row domain-service writes once DNS checks pass).
 */
export async function campaignProject(stack: Stack): Promise<TestProject> {
  const domain = `camp-${randomUUID().slice(0, 8)}.example.com`;
  const sender = `news@${domain}`;
  const created = await stack.admin("POST", "/projects", {
    name: `campaign test ${domain}`,
    postal_address: "1 Test Street, Testville",
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const projectId = created.body.project.id as string;
  const s = await stack.admin("POST", `/projects/${projectId}/senders`, { email: sender, name: "News Team" });
  if (s.status !== 201) throw new Error(JSON.stringify(s.body));
  await stack.db.pool.query(
    `INSERT INTO domain_identities (id, project_id, domain, domain_unicode, status, domain_verified, dkim_verified,
                                    verification_token, dkim_tokens, mail_from_domain, active_domain, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $2, 'verified', true, true, 't', '{}', 'mail.' || $2, $2, now())`,
    [projectId, domain],
  );
  return { projectId, liveKey: created.body.live_key, sender, domain };
}

/**
 * `n` subscribed leads (set-based, as an import would leave them): `<prefix>-<i>@<domain>` with a first name and
 * a `plan` attribute; `bounce`/`complaint` make every `every`-th one a simulator address that bounces or complains.
 */
export async function seedLeads(
  stack: Stack,
  projectId: string,
  n: number,
  opts: { prefix?: string; domain?: string; tag?: string; subscription?: string } = {},
): Promise<void> {
  const prefix = opts.prefix ?? "lead";
  const domain = opts.domain ?? "example.org";
  await stack.db.pool.query(
    `INSERT INTO leads (id, project_id, email, email_normalized, first_name, attributes, tags, subscription, source, updated_at)
     SELECT gen_random_uuid(), $1, e, e, 'Name' || i, jsonb_build_object('plan', 'gold'), $4::text[], $5, 'api', now()
       FROM generate_series(1, $2) i, LATERAL (SELECT $3 || '-' || i || '@' || $6 AS e) x`,
    [projectId, n, prefix, opts.tag ? [opts.tag] : [], opts.subscription ?? "subscribed", domain],
  );
}

/** The campaign row as the admin API shows it. */
export async function show(stack: Stack, projectId: string, id: string): Promise<any> {
  const res = await stack.admin("GET", `/projects/${projectId}/campaigns/${id}`);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.campaign;
}

/** Waits until the campaign's status is one of `statuses`. */
export function waitStatus(
  stack: Stack,
  projectId: string,
  id: string,
  statuses: string[],
  timeoutMs = 60_000,
) {
  return waitFor(
    async () => {
      const c = await show(stack, projectId, id);
      return statuses.includes(c.status) ? c : null;
    },
    timeoutMs,
    `campaign ${id} ${statuses.join("|")}`,
    200,
  );
}

/** How many emails the simulator accepted for each recipient address of a project's campaign sends. */
export async function simCounts(
  stack: Stack,
  filter: (to: string) => boolean = () => true,
): Promise<Map<string, number>> {
  const res = await fetch(`${stack.simUrl}/_sim/messages`);
  const body = (await res.json()) as { messages: { to: string[] }[] };
  const counts = new Map<string, number>();
  for (const m of body.messages)
    for (const to of m.to) if (filter(to)) counts.set(to, (counts.get(to) ?? 0) + 1);
  return counts;
}
