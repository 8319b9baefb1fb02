/**
 * `pnpm start`: the whole stack on a machine without Docker, against PostgreSQL, RabbitMQ and Redis on
 * localhost. Applies migrations, starts s3rver, the provider simulator, the nine services and the gateway,
 * creates (or reuses) a demo project with a verified sender, prints the base URL and keys, and writes the
 * same facts to .local/demo.json. Ctrl-C stops everything it started.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createDb, startAutovacuumStandIn } from "@emailsvc/db";
import { stackIsolation } from "./isolation";
import { ensureVhost } from "./rabbit-vhost";
import { demoCampaignCommand, ensureCampaignReady } from "./demo-campaign";
import { ensureDemoOwner } from "./demo-owner";
import { DEMO_SENDER, ensureDemoProject } from "./demo-project";
import { startGateway } from "./gateway";
import { dependenciesFor, missingDependencies } from "./preflight";
import { ensureSecretsFile, type Secrets, writePrivate } from "./secrets";
import {
  GATEWAY_PORT as BASE_GATEWAY_PORT,
  internalAddresses,
  S3_PORT as BASE_S3_PORT,
  SERVICES as BASE_SERVICES,
  SIMULATOR_PORT as BASE_SIMULATOR_PORT,
  withPortOffset,
  withReplicas,
} from "./services";

const root = path.resolve(__dirname, "../../..");
// STACK_STATE_DIR and STACK_PORT_OFFSET let a second stack (the end-to-end test) run beside a developer's one.
const localDir = path.resolve(root, process.env.STACK_STATE_DIR ?? ".local");
const offset = Number(process.env.STACK_PORT_OFFSET ?? 0);
// A second stack's own database, vhost and send-rate key (stackIsolation).
const isolation = stackIsolation(localDir, root, process.env);
const logDir = path.join(localDir, "logs");
/**
 * `<name>.pid` of every process the stack runs (rewritten when supervision restarts it): what a script that kills
 * one (bench/chaos) reads, since a worker without a public route is otherwise found only by its port.
 */
const pidDir = path.join(localDir, "pids");
const tsxCli = require.resolve("tsx/cli");
/**
 * Services run as `node --import <tsx's loader>`, one process each. Under the tsx CLI (a launcher process with the
 * service as its child) Ctrl-C stopped nothing gracefully: the launcher took the terminal's SIGINT and then this
 * stack's SIGTERM for a second Ctrl-C, and SIGKILLed the service mid-shutdown (sends cut off in flight, the broker
 * never closed). It also halves the stack's node processes.
 */
const tsxLoader = pathToFileURL(require.resolve("tsx")).href;
// STACK_REPLICAS (`send-worker=2,campaign-dispatcher=2`): extra instances of a service (services.ts withReplicas)
const SERVICES = withReplicas(withPortOffset(BASE_SERVICES, offset), process.env.STACK_REPLICAS);
const GATEWAY_PORT = BASE_GATEWAY_PORT + offset;
const S3_PORT = BASE_S3_PORT + offset;
const SIMULATOR_PORT = BASE_SIMULATOR_PORT + offset;
const publicApi = SERVICES.find((s) => s.name === "public-api")!;
const domainService = SERVICES.find((s) => s.name === "domain-service")!;
const smtpRelay = SERVICES.find((s) => s.smtp);

/**
 * The SMTP relay's certificate for this machine: self-signed for 127.0.0.1 and localhost, made once with openssl
 * into .local/smtp-tls/ (null without openssl: the relay then offers no STARTTLS and takes AUTH on loopback only).
 */
function localSmtpCertificate(): { cert: string; key: string } | null {
  const dir = path.join(localDir, "smtp-tls");
  const cert = path.join(dir, "cert.pem");
  const key = path.join(dir, "key.pem");
  if (fs.existsSync(cert) && fs.existsSync(key)) return { cert, key };
  fs.mkdirSync(dir, { recursive: true });
  const made = spawnSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "825", "-keyout", key, "-out", cert],
      ...["-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
    ],
    { stdio: "ignore" },
  );
  return made.status === 0 ? { cert, key } : null;
}

/** The relay's listeners: local ports, the local certificate, and AUTH without TLS from loopback (development). */
function smtpEnv(ports: { port: number; tlsPort: number }, tls: { cert: string; key: string } | null) {
  return {
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: String(ports.port),
    SMTP_TLS_PORT: tls ? String(ports.tlsPort) : "0",
    ...(tls ? { SMTP_TLS_CERT: tls.cert, SMTP_TLS_KEY: tls.key } : {}),
    SMTP_ALLOW_INSECURE_AUTH: "true",
  };
}
const children: { name: string; proc: ChildProcess }[] = [];

/**
 * Dev secrets are generated once and kept, so stored (encrypted) API keys stay readable across restarts; a secret
 * added since (INTERNAL_TOKEN) is generated into the existing file. Mode 0600.
 */
function loadSecrets(): Secrets {
  const { secrets, added } = ensureSecretsFile(path.join(localDir, "secrets.json"));
  if (added.length) log(`generated ${added.join(", ")} into ${path.relative(root, localDir)}/secrets.json`);
  return secrets;
}

function log(msg: string): void {
  process.stdout.write(`[start] ${msg}\n`);
}

/** Extra node flags for every service, e.g. `STACK_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` to profile a run. */
const nodeFlags = (process.env.STACK_NODE_FLAGS ?? "").split(" ").filter(Boolean);

/**
 * The niceness of the background services (ServiceSpec.background) and the provider simulator
 * (STACK_BACKGROUND_NICE, default 10; 0 turns it off). Measured on bench/send-pipeline, fresh stacks alternately on
 * a busy 2-core machine: /v1/send-email through the gateway at 100 req/s p50 15–21 ms and p99 72–130 ms, against
 * 33–35 ms and 143–182 ms with every process at the same priority, at the same emails/s; a campaign's rate the same
 * (bench/campaigns). The simulator stands in for SES, whose CPU is not the user's machine's in production.
 */
const BACKGROUND_NICE = Number(process.env.STACK_BACKGROUND_NICE ?? 10);
/** `nice` (coreutils, every Linux and macOS) runs the child at that niceness from its first thread on. */
const niceWorks =
  process.platform !== "win32" && spawnSync("nice", ["-n", "1", "true"], { stdio: "ignore" }).status === 0;

/**
 * Supervision (issue 47), on unless `--no-supervise` or STACK_SUPERVISE=0: a process of the stack that dies is
 * started again, as Kubernetes restarts a pod, after 1 s, doubling to 30 s while it keeps dying within a minute of
 * its start; each restart is logged. Ctrl-C stops supervision first, then everything.
 */
const SUPERVISE = !process.argv.includes("--no-supervise") && process.env.STACK_SUPERVISE !== "0";

function runTs(
  name: string,
  file: string,
  env: NodeJS.ProcessEnv,
  opts: { nice?: number; restarts?: number } = {},
): ChildProcess {
  const startedAt = Date.now();
  const out = fs.openSync(path.join(logDir, `${name}.log`), "a");
  const args = ["--import", tsxLoader, ...nodeFlags, "--conditions=development", file];
  const nice = niceWorks && opts.nice ? opts.nice : 0;
  const [cmd, argv] = nice
    ? ["nice", ["-n", String(nice), process.execPath, ...args]]
    : [process.execPath, args];
  const proc = spawn(cmd, argv, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", out, out],
  });
  const entry = { name, proc };
  children.push(entry);
  // `nice` execs node, so the pid is the service's either way
  if (proc.pid) fs.writeFileSync(path.join(pidDir, `${name}.pid`), `${proc.pid}\n`);
  proc.on("exit", (code, signal) => {
    fs.closeSync(out);
    const logFile = `${path.relative(root, logDir)}/${name}.log`;
    if (stopping) {
      // a graceful stop ends with 0: anything else was cut short (killed after the grace period, or crashed)
      if (code !== 0) log(`${name} did not stop cleanly (${signal ?? code}); see ${logFile}`);
      return;
    }
    if (!SUPERVISE) return log(`${name} exited (${signal ?? code}); see ${logFile}`);
    // it ran a minute: a new failure, not the same crash loop
    const restarts = Date.now() - startedAt > 60_000 ? 0 : (opts.restarts ?? 0);
    const delay = Math.min(30_000, 1_000 * 2 ** restarts);
    log(`${name} exited (${signal ?? code}); restarting it in ${delay / 1000} s (see ${logFile})`);
    setTimeout(() => {
      if (stopping) return;
      const i = children.indexOf(entry);
      if (i >= 0) children.splice(i, 1);
      runTs(name, file, env, { ...opts, restarts: restarts + 1 });
      log(`${name} restarted`);
    }, delay).unref();
  });
  return proc;
}

/**
 * The dashboard public-api serves under /dashboard (apps/dashboard/dist): built here when it is missing or older
 * than its sources, so `npm start` shows it without a separate `pnpm build` (Vite, about 10 s).
 */
async function ensureDashboardBuilt(): Promise<void> {
  const dir = path.join(root, "apps/dashboard");
  const built = path.join(dir, "dist/index.html");
  const newest = (p: string): number => {
    const st = fs.statSync(p);
    if (!st.isDirectory()) return st.mtimeMs;
    return Math.max(0, ...fs.readdirSync(p).map((f) => newest(path.join(p, f))));
  };
  if (!fs.existsSync(dir)) return;
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= newest(path.join(dir, "src"))) return;
  log("building the dashboard (apps/dashboard, vite build)");
  const vite = path.join(dir, "node_modules/vite/bin/vite.js");
  await new Promise<void>((resolve) => {
    const proc = spawn(process.execPath, [vite, "build", "--logLevel", "warn"], {
      cwd: dir,
      stdio: "inherit",
    });
    proc.on("exit", (code) => {
      if (code !== 0) log(`the dashboard did not build (exit ${code}); /dashboard will say so`);
      resolve();
    });
  });
}

function runToEnd(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [tsxCli, file, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: "inherit",
    });
    proc.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(file)} exited with ${code}`)),
    );
  });
}

async function waitReady(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

let stopping = false;
let stopped: Promise<never> | undefined;
/** Stops every child once, however many signals arrive (Ctrl-C sends SIGINT to the whole process group). */
function stopAll(code: number): Promise<never> {
  return (stopped ??= stopChildren(code));
}
async function stopChildren(code: number): Promise<never> {
  stopping = true;
  log("stopping…");
  for (const c of [...children].reverse()) c.proc.kill("SIGTERM");
  await Promise.race([
    Promise.all(
      children.map((c) => new Promise((r) => (c.proc.exitCode !== null ? r(null) : c.proc.once("exit", r)))),
    ),
    new Promise((r) => setTimeout(r, 27_000)),
  ]);
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
  process.exit(code);
}

async function main(): Promise<void> {
  fs.mkdirSync(logDir, { recursive: true });
  fs.mkdirSync(pidDir, { recursive: true });
  const missing = await missingDependencies(dependenciesFor(process.env));
  if (missing.length) {
    process.stderr.write(
      `\nThe local stack needs these services running:\n\n${missing.map((m) => `  - ${m}`).join("\n")}\n\n`,
    );
    process.exit(1);
  }
  const secrets = loadSecrets();
  const { databaseUrl, rabbitUrl } = isolation;
  if (isolation.ownVhost) await ensureVhost(isolation.ownVhost);
  const baseUrl = `http://localhost:${GATEWAY_PORT}`;
  const readyMs = Number(process.env.STACK_READY_TIMEOUT_MS ?? 120_000);
  const simulatorUrl = `http://127.0.0.1:${SIMULATOR_PORT}`;
  const common: NodeJS.ProcessEnv = {
    NODE_ENV: "development",
    // Loopback only: the internal port (no-key /send-email, /admin) must never be reachable from the network
    // (ARCHITECTURE.md: exposing it would make an open relay). Clients come in through the gateway.
    HOST: "127.0.0.1",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    DATABASE_URL: databaseUrl,
    RABBITMQ_URL: rabbitUrl,
    ...(isolation.sendRateKey ? { SEND_RATE_KEY: isolation.sendRateKey } : {}),
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0",
    ...secrets,
    AWS_REGION: "us-east-1",
    // s3rver's default credentials (the simulator ignores credentials)
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    SES_ENDPOINT: simulatorUrl,
    SNS_ENDPOINT: simulatorUrl,
    S3_ENDPOINT: `http://127.0.0.1:${S3_PORT}`,
    INBOUND_DOMAIN: "inbound.localhost",
    PUBLIC_BASE_URL: baseUrl,
    // public-api's admin API (the dashboard's Domains page) calls domain-service's internal port
    DOMAIN_SERVICE_URL: `http://127.0.0.1:${domainService.internalPort}`,
    // Local only: accept SNS signing certificates served by the simulator (production allows AWS hosts only).
    SNS_CERT_HOST_PATTERN: "^127\\.0\\.0\\.1$",
    SNS_ALLOW_HTTP_CERT_URLS: "true",
    // The simulator's SES notification topic (its default account and region), the only one accepted.
    SNS_TOPIC_ARNS: "arn:aws:sns:us-east-1:000000000000:ses-notifications",
    // inbound-mail: the simulator's SES receiving topic, and the bucket its S3 action writes to.
    INBOUND_SNS_TOPIC_ARNS: "arn:aws:sns:us-east-1:000000000000:ses-inbound",
    INBOUND_BUCKET: "inbound-mail",
    // Local only: client webhooks may go to a receiver on this machine (production refuses private addresses).
    WEBHOOK_URL_ALLOW_PRIVATE: "true",
    // Dashboard invitations are emailed from the demo project's verified sender (the project holding it is found
    // at each invitation, so it works once ensureDemoProject has run); the simulator records them.
    DASHBOARD_INVITE_FROM: process.env.DASHBOARD_INVITE_FROM ?? `Email platform <${DEMO_SENDER}>`,
    // With the provider rate off (SEND_RATE_PER_SECOND=0: the benchmarks' stack), the send routes' per-key request
    // limit and daily cap are off too, unless given: a benchmark sends hundreds of requests a second and millions
    // of emails a day through the demo key. Otherwise the services' defaults hold, as in production.
    ...(process.env.SEND_RATE_PER_SECOND === "0"
      ? {
          SEND_RATE_LIMIT: process.env.SEND_RATE_LIMIT ?? "0",
          SEND_DAILY_CAP: process.env.SEND_DAILY_CAP ?? "0",
        }
      : {}),
  };

  await ensureDashboardBuilt();
  log("applying database migrations");
  await runToEnd("packages/db/scripts/migrate.ts", ["deploy"], { DATABASE_URL: databaseUrl });
  // ends with this process (stopAll exits it)
  await startAutovacuumStandIn(createDb(databaseUrl, { max: 1 }), log);

  log(`starting s3rver on :${S3_PORT}`);
  runTs("s3rver", "tools/dev-stack/src/s3rver.ts", {
    S3_PORT: String(S3_PORT),
    S3_DIR: path.join(localDir, "s3"),
  });

  log(`starting the provider simulator on :${SIMULATOR_PORT}`);
  runTs(
    "provider-simulator",
    "tools/provider-simulator/src/main.ts",
    {
      SIMULATOR_PORT: String(SIMULATOR_PORT),
      SIMULATOR_HOST: "127.0.0.1",
      SIMULATOR_PUBLIC_URL: simulatorUrl,
      SIMULATOR_NOTIFICATION_URL: `http://127.0.0.1:${GATEWAY_PORT}/webhooks/provider`,
      SIMULATOR_INBOUND_URL: `http://127.0.0.1:${GATEWAY_PORT}/api/inbound/provider`,
      SIMULATOR_S3_ENDPOINT: `http://127.0.0.1:${S3_PORT}`,
      SIMULATOR_S3_BUCKET: "inbound-mail",
    },
    { nice: BACKGROUND_NICE },
  );

  const smtpTls = localSmtpCertificate();
  for (const svc of SERVICES) {
    runTs(
      svc.name,
      `apps/${svc.app ?? svc.name}/src/main.ts`,
      {
        ...common,
        PORT: String(svc.port),
        ...(svc.internalPort ? { INTERNAL_PORT: String(svc.internalPort) } : {}),
        ...(svc.smtp ? smtpEnv(svc.smtp, smtpTls) : {}),
      },
      { nice: svc.background ? BACKGROUND_NICE : 0 },
    );
  }
  await startGateway(GATEWAY_PORT, SERVICES);
  log(`gateway on ${baseUrl}; waiting for every service's /readyz`);

  const results = await Promise.all(
    SERVICES.map(async (s) => ({ s, ok: await waitReady(`http://127.0.0.1:${s.port}/readyz`, readyMs) })),
  );
  const notReady = results.filter((r) => !r.ok).map((r) => r.s.name);
  if (notReady.length) {
    log(
      `not ready after ${readyMs / 1000} s: ${notReady.join(", ")} (logs in ${path.relative(root, logDir)}/)`,
    );
    await stopAll(1);
  }

  const internal = internalAddresses(SERVICES);
  const adminUrl = `http://127.0.0.1:${publicApi.internalPort}/admin`;
  const db = createDb(databaseUrl, { max: 2 });
  const demo = await ensureDemoProject({
    db,
    adminUrl,
    adminToken: secrets.ADMIN_TOKEN,
    encryptionKey: secrets.API_KEY_ENCRYPTION_KEY,
    log,
  }).finally(() => db.close());
  log(`${demo.origin === "created" ? "created" : "reusing"} demo project ${demo.projectId}`);
  const campaignReady = await ensureCampaignReady({
    baseUrl,
    simulatorUrl,
    liveKey: demo.liveKey,
    adminUrl,
    adminToken: secrets.ADMIN_TOKEN,
    projectId: demo.projectId,
    log,
  });
  if (!campaignReady.ready) log(`the demo project is not campaign-ready: ${campaignReady.why}`);
  const owner = await ensureDemoOwner({
    adminUrl,
    adminToken: secrets.ADMIN_TOKEN,
    projectId: demo.projectId,
    localDir,
  });
  // The command as it runs from the repository root; a second stack's facts are found through STACK_STATE_DIR.
  const campaignCommand = demoCampaignCommand(
    demo.projectId,
    path.resolve(localDir) === path.resolve(root, ".local")
      ? null
      : (process.env.STACK_STATE_DIR ?? localDir),
  );
  // A cache of what the database holds (rewritten on every start), for the README's commands and the admin CLI.
  const facts = {
    base_url: baseUrl,
    ...Object.fromEntries(internal.map((a) => [a.fact, a.url])),
    admin_token: secrets.ADMIN_TOKEN,
    internal_token: secrets.INTERNAL_TOKEN,
    dashboard_url: `${adminUrl.replace(/\/admin$/, "")}/dashboard/`,
    dashboard_email: owner.email,
    dashboard_password: owner.password,
    project_id: demo.projectId,
    live_key: demo.liveKey,
    test_key: demo.testKey,
    sender_email: demo.senderEmail,
    simulator_url: simulatorUrl,
    ...(smtpRelay?.smtp ? { smtp_url: `smtp://127.0.0.1:${smtpRelay.smtp.port}` } : {}),
    database_url: databaseUrl,
    rabbitmq_url: rabbitUrl,
  };
  // 0600: it holds the admin and internal tokens and the demo keys
  writePrivate(path.join(localDir, "demo.json"), JSON.stringify(facts, null, 2) + "\n");
  const internalLines = internal
    .map((a) => `    ${a.fact.padEnd(15)} ${a.url}   ${a.routes.join(", ")} (${a.service})`)
    .join("\n");
  process.stdout.write(`
  Email service is up.

    Base URL        ${baseUrl}
    Live key        ${demo.liveKey}${demo.keysRegenerated ? "   (regenerated)" : ""}
    Test key        ${demo.testKey}${demo.keysRegenerated ? "   (regenerated)" : ""}
    Demo sender     ${demo.senderEmail} (verified)
    Dashboard       ${adminUrl.replace(/\/admin$/, "")}/dashboard/   sign in as ${owner.email} / ${owner.password}
    Simulator       ${simulatorUrl}/_sim/messages   (every email "sent" lands here)
${smtpRelay?.smtp ? `    SMTP            127.0.0.1:${smtpRelay.smtp.port} (STARTTLS${smtpTls ? `, self-signed; implicit TLS on :${smtpRelay.smtp.tlsPort}` : " off: no openssl"}), user apikey, password a key\n` : ""}    Facts           ${path.relative(root, path.join(localDir, "demo.json"))}     Logs: ${path.relative(root, logDir)}/

  Internal routes (this machine only, no API key; they take the internal_token of the facts file as
  x-internal-token, and /admin takes its admin_token instead):
${internalLines}
    Internal token  ${secrets.INTERNAL_TOKEN}

  Try:
    curl -s ${baseUrl}/v1/send-email \\
      -H "Authorization: Bearer ${demo.testKey}" -H "Content-Type: application/json" \\
      -d '{"recipient_email":"success@simulator.amazonaws.com","sender_email":"${demo.senderEmail}","subject":"Hello {{name}}","html_body":"<p>Hi {{name}}</p>","data":{"name":"Ada"}}'
${
  campaignReady.ready
    ? `
  A campaign (example.com verified in the simulator, a PLACEHOLDER postal address, leads tagged demo):
    ${campaignCommand}
`
    : ""
}
  Ctrl-C stops everything.
`);
}

// `on`, not `once`: Ctrl-C signals the launchers above this process too, and a repeated signal that found no
// handler ended this process before its services had stopped.
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));
// A launcher that dies without passing a signal on (a SIGKILLed tsx CLI, a test runner that exited) leaves this
// process orphaned: stop everything rather than keep nine services running for nobody. A test run's stack
// outlived its test by 40 minutes and held the ports the next run's stack wanted.
const launcher = process.ppid;
setInterval(() => {
  if (process.ppid === launcher || stopping) return;
  // nobody reads our output any more: a write must not end this process before it has stopped the services
  process.stdout.on("error", () => undefined);
  process.stderr.on("error", () => undefined);
  void stopAll(1);
}, 1_000).unref();
main().catch((err: unknown) => {
  process.stderr.write(`[start] ${err instanceof Error ? err.message : String(err)}\n`);
  void stopAll(1);
});
