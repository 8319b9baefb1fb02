/**
 * The chaos run's HTTP client: every answer of 500 or more is recorded (when, which route, whether its body was
 * JSON), and a client retry helper that does what a careful client does: the same request again (the same
 * Idempotency-Key, webhook id or SNS MessageId) after a network error, a 5xx or a 409 "still in flight".
 */
import { Agent, request } from "undici";

export interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown> | null;
  headers: Record<string, string | string[] | undefined>;
}

export interface FiveXx {
  at: number;
  route: string;
  status: number;
  json: boolean;
  body: string;
}

const agent = new Agent({
  connections: 64,
  keepAliveTimeout: 10_000,
  headersTimeout: 30_000,
  bodyTimeout: 30_000,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Client {
  readonly fiveXx: FiveXx[] = [];
  readonly networkErrors: { at: number; route: string; error: string }[] = [];
  /** requests per route (attempts, retries included) */
  readonly attempts = new Map<string, number>();

  async call(
    method: "GET" | "POST" | "PATCH" | "DELETE",
    url: string,
    route: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<Answer | null> {
    this.attempts.set(route, (this.attempts.get(route) ?? 0) + 1);
    try {
      const r = await request(url, {
        method,
        headers: body !== undefined ? { "content-type": "application/json", ...headers } : headers,
        ...(body !== undefined ? { body } : {}),
        dispatcher: agent,
      });
      const text = await r.body.text();
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        /* not JSON */
      }
      if (r.statusCode >= 500)
        this.fiveXx.push({
          at: Date.now(),
          route,
          status: r.statusCode,
          json: json !== null,
          body: text.slice(0, 200),
        });
      return { status: r.statusCode, text, json, headers: r.headers };
    } catch (err) {
      this.networkErrors.push({ at: Date.now(), route, error: (err as Error).message });
      return null;
    }
  }

  /**
   * `attempt` again until it answers something other than a network error, a 5xx or a 409 (the same key still in
   * flight), or `giveUpAt` passes; 0.5 s, then up to 4 s between tries. The last answer (null: none).
   */
  async retry(
    attempt: () => Promise<Answer | null>,
    giveUpAt: () => number,
    retryOn409 = true,
  ): Promise<Answer | null> {
    let wait = 500;
    for (;;) {
      const a = await attempt();
      const again = !a || a.status >= 500 || (retryOn409 && a.status === 409);
      if (!again || Date.now() > giveUpAt()) return a;
      await sleep(wait);
      wait = Math.min(4000, wait * 2);
    }
  }
}
