import { Writable } from "node:stream";
import { runWithContext } from "./context";
import { createLogger } from "./logger";
import { createMetrics } from "./metrics";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      cb();
    },
  });
  return { lines, destination };
}

describe("createLogger", () => {
  it("writes JSON with the service and the request id of the current context", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "public-api", destination });
    runWithContext({ requestId: "req-1" }, () => log.info({ a: 1 }, "hello"));
    expect(lines[0]).toMatchObject({
      service: "public-api",
      requestId: "req-1",
      msg: "hello",
      level: "info",
    });
  });

  it("redacts API keys by field path and inside messages", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "s", destination });
    log.info(
      { req: { headers: { authorization: "Bearer sk_live_abc" } }, apiKey: "sk_test_x" },
      "key sk_live_ABCDEF123 used",
    );
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain("sk_live_abc");
    expect(text).not.toContain("ABCDEF123");
    expect(text).not.toContain("sk_test_x");
    expect(text).toContain("[redacted]");
  });

  it("redacts the admin and internal tokens of a request's headers", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "s", destination });
    log.info(
      { req: { headers: { "x-admin-token": "adm_secret1", "x-internal-token": "int_secret2" } } },
      "req",
    );
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain("adm_secret1");
    expect(text).not.toContain("int_secret2");
  });
});

describe("createMetrics", () => {
  it("exposes default and custom metrics in Prometheus text", async () => {
    const m = createMetrics("svc");
    m.counter("things_total", "things").inc();
    const text = await m.registry.metrics();
    expect(text).toContain("things_total");
    expect(text).toContain("process_cpu_user_seconds_total");
  });
});
