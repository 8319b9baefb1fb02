import express from "express";
import { createLogger } from "@emailsvc/observability";
import { createLifecycle } from "./lifecycle";

describe("lifecycle", () => {
  it("finishes in-flight requests, then runs closers in order, and refuses new work", async () => {
    const logger = createLogger({ service: "t", level: "silent" });
    const lc = createLifecycle({ logger, timeoutMs: 5000, exit: () => undefined });
    const app = express();
    app.get("/slow", (_req, res) => {
      setTimeout(() => res.send("done"), 300);
    });
    const server = await lc.listen(app, 0, "127.0.0.1");
    const port = (server.address() as { port: number }).port;
    const order: string[] = [];
    lc.onShutdown("consumers", () => order.push("consumers"));
    lc.onShutdown("db", async () => order.push("db"));

    const inflight = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 50));
    const done = lc.shutdown("test");
    expect(lc.isAcceptingTraffic()).toBe(false);
    expect(await inflight).toBe("done");
    await done;
    expect(order).toEqual(["consumers", "db"]);
    await expect(fetch(`http://127.0.0.1:${port}/slow`)).rejects.toThrow();
  });
});
