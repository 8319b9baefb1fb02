// Benchmarks run against a stack started with `pnpm start` (facts in .local/demo.json).
import fs from "node:fs";
import path from "node:path";
import { Agent, request } from "undici";

export interface Demo {
  base_url: string;
  internal_url: string;
  admin_token: string;
  /** x-internal-token of the internal routes (POST /send-email, /trigger-job, /trigger-campaign). */
  internal_token: string;
  project_id: string;
  live_key: string;
  test_key: string;
  sender_email: string;
  simulator_url: string;
  database_url?: string;
}

/** The stack's facts folder: .local, or STACK_STATE_DIR for a second stack (`STACK_STATE_DIR=.local-x pnpm start`). */
export const STACK_DIR = path.resolve(__dirname, "../..", process.env.STACK_STATE_DIR ?? ".local");
/** STACK_PORT_OFFSET: a stack started beside another one (`STACK_PORT_OFFSET=320 pnpm start`). */
export const PORT_OFFSET = Number(process.env.STACK_PORT_OFFSET ?? 0);

/** The stack's dev secrets (TRACKING_SECRET, API_KEY_ENCRYPTION_KEY, ADMIN_TOKEN), from its facts folder. */
export function stackSecrets(): Record<string, string> {
  return JSON.parse(fs.readFileSync(path.join(STACK_DIR, "secrets.json"), "utf8")) as Record<string, string>;
}

export function demo(): Demo {
  const file = path.join(STACK_DIR, "demo.json");
  if (!fs.existsSync(file)) {
    console.error(
      "Start the stack first: SEND_RATE_PER_SECOND=0 pnpm start   (then run the benchmark in another shell)",
    );
    process.exit(1);
  }
  return JSON.parse(fs.readFileSync(file, "utf8")) as Demo;
}

function facts(): { database_url?: string; rabbitmq_url?: string } {
  const file = path.join(STACK_DIR, "demo.json");
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as ReturnType<typeof facts>) : {};
}

/** The stack's database and broker: the env's, else those `pnpm start` named in demo.json (a STACK_STATE_DIR stack has its own). */
export const DATABASE_URL =
  process.env.DATABASE_URL ?? facts().database_url ?? "postgresql://postgres@127.0.0.1:5432/emailsvc";
export const RABBITMQ_URL =
  process.env.RABBITMQ_URL ?? facts().rabbitmq_url ?? "amqp://guest:guest@127.0.0.1:5672";

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** Resident memory of a service, from its Prometheus /metrics. */
export async function rssOf(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = /^process_resident_memory_bytes(?:\{[^}]*\})? (\d+(?:\.\d+)?(?:e\+\d+)?)/m.exec(text);
  return m ? Number(m[1]) : NaN;
}

export const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
export const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

/** `--name value` from the command line, else the default. */
export function numArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/**
 * The load generator's POST: undici's `request` over one keep-alive agent. The global `fetch` costs several
 * times more CPU per request, and on a 2-core machine the load generator's CPU is taken from the stack it measures.
 */
const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000 });
export async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const r = await request(url, { method: "POST", body, headers, dispatcher: agent });
  return { status: r.statusCode, text: await r.body.text() };
}
