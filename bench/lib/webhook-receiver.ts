import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Demo } from "./stack";

/** `--webhook up` (a local receiver answering 200), `down` (a closed port) or `off` (no URL). */
export type WebhookMode = "up" | "down" | "off";

export function webhookModeArg(fallback: WebhookMode = "up"): WebhookMode {
  const i = process.argv.indexOf("--webhook");
  const v = i >= 0 ? process.argv[i + 1] : fallback;
  return v === "up" || v === "down" || v === "off" ? v : fallback;
}

export interface WebhookReceiver {
  mode: WebhookMode;
  /** Requests the receiver has answered so far. */
  hits(): number;
  /** When the last request arrived (performance.now()), or null before the first. */
  lastAt(): number | null;
  /**
   * Resolves when `n` more requests than `from` arrived, after `timeoutMs`, or once none arrived for `idleMs`;
   * with the time it took.
   */
  waitFor(from: number, n: number, timeoutMs: number, idleMs?: number): Promise<number>;
  /** Puts the demo project's URLs back as they were and stops the receiver. */
  restore(): Promise<void>;
}

/**
 * The case users run (issue 28): the demo project's webhook_url and webhook_url_dev point at a local receiver that
 * answers 200 at once (`up`), at a port nothing listens on (`down`), or are empty (`off`). The services trust a
 * project's URLs for 5 s (WEBHOOK_URL_CACHE_MS and the publishers' caches), so this waits 6 s before resolving.
 */
export async function useWebhookReceiver(d: Demo, mode: WebhookMode): Promise<WebhookReceiver> {
  let hits = 0;
  let lastAt: number | null = null;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits++;
      lastAt = performance.now();
      res.end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  if (mode === "down") await new Promise((r) => receiver.close(r));
  const admin = (method: string, body?: unknown) =>
    fetch(`${d.internal_url}/admin/projects/${d.project_id}`, {
      method,
      headers: { "x-admin-token": d.admin_token, "Content-Type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then(async (r) => {
      if (!r.ok) throw new Error(`admin API answered ${r.status}`);
      return ((await r.json()) as { project: Record<string, string | null> }).project;
    });
  const saved = await admin("GET");
  const target = mode === "off" ? "" : url;
  await admin("PATCH", { webhook_url: target, webhook_url_dev: target });
  await new Promise((r) => setTimeout(r, 6000));
  return {
    mode,
    hits: () => hits,
    lastAt: () => lastAt,
    async waitFor(from, n, timeoutMs, idleMs = Infinity) {
      const t = performance.now();
      const idle = () => performance.now() - Math.max(lastAt ?? t, t) >= idleMs;
      while (hits - from < n && performance.now() - t < timeoutMs && !idle())
        await new Promise((r) => setTimeout(r, 50));
      return performance.now() - t;
    },
    async restore() {
      await admin("PATCH", {
        webhook_url: saved.webhook_url ?? "",
        webhook_url_dev: saved.webhook_url_dev ?? "",
      });
      if (mode !== "down") receiver.close();
    },
  };
}
