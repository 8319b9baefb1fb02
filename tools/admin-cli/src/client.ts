import fs from "node:fs";
import path from "node:path";

export interface AdminTarget {
  url: string;
  token: string;
}

/**
 * The facts `pnpm start` wrote: `.local/demo.json`, or that of the stack STACK_STATE_DIR names (a second stack
 * beside yours, `STACK_STATE_DIR=.local-b pnpm start`); empty when there is none.
 */
function stackFacts(env: NodeJS.ProcessEnv, root: string): Record<string, string> {
  const file = path.resolve(root, env.STACK_STATE_DIR ?? ".local", "demo.json");
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, string>) : {};
}

/** ADMIN_URL / ADMIN_TOKEN from env, else the facts `pnpm start` wrote (stackFacts). */
export function resolveTarget(
  env: NodeJS.ProcessEnv = process.env,
  root = path.resolve(__dirname, "../../.."),
): AdminTarget {
  const demo = stackFacts(env, root);
  const url =
    env.ADMIN_URL ?? (demo.internal_url ? `${demo.internal_url}/admin` : "http://127.0.0.1:3101/admin");
  const token = env.ADMIN_TOKEN ?? demo.admin_token;
  if (!token)
    throw new Error(
      "No admin token: set ADMIN_TOKEN or run `pnpm start` first (it writes .local/demo.json).",
    );
  return { url: url.replace(/\/$/, ""), token };
}

/** campaign-dispatcher's internal address: CAMPAIGN_URL, else `campaign_url` of the stack's facts. */
export function resolveTriggerUrl(
  env: NodeJS.ProcessEnv = process.env,
  root = path.resolve(__dirname, "../../.."),
): string {
  return (env.CAMPAIGN_URL ?? stackFacts(env, root).campaign_url ?? "http://127.0.0.1:3104").replace(
    /\/$/,
    "",
  );
}

/**
 * The internal token of POST /trigger-job and /trigger-campaign (sent as x-internal-token): INTERNAL_TOKEN, else
 * `internal_token` of the stack's facts. The admin API takes the admin token instead.
 */
export function resolveInternalToken(
  env: NodeJS.ProcessEnv = process.env,
  root = path.resolve(__dirname, "../../.."),
): string {
  const token = env.INTERNAL_TOKEN ?? stackFacts(env, root).internal_token;
  if (!token)
    throw new Error(
      "No internal token: set INTERNAL_TOKEN or run `pnpm start` first (it writes .local/demo.json).",
    );
  return token;
}

/** A call of an internal route (not the admin API): `base` is the service's internal address. */
export function callInternal(base: string, route: string, body: unknown): Promise<unknown> {
  return call({ url: base, token: "" }, "POST", route, body, { "x-internal-token": resolveInternalToken() });
}

export async function call(
  target: AdminTarget,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = { Authorization: `Bearer ${target.token}` },
): Promise<unknown> {
  const res = await fetch(`${target.url}${route}`, {
    method,
    headers: {
      ...headers,
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const msg = (parsed as { error?: string } | null)?.error ?? text;
    throw new Error(`${method} ${route} → ${res.status}: ${msg}`);
  }
  return parsed;
}
