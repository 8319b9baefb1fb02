// A provider call that SES accepted but whose answer never reached the worker (the request timed out, or the
// connection was cut after the request was out): bench/chaos found 77 emails sent twice on a loaded machine, the
// claim given back as if nothing had been sent and the redelivered request sending it again. Real PostgreSQL,
// Redis, s3rver and the provider simulator; between the worker and the simulator a proxy that forwards every
// request and holds SendEmail's answer past the SDK's request timeout.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { makeEnvelope, RoutingKeys } from "@emailsvc/contracts";
import { RetryableError } from "@emailsvc/messaging";
import { createSesClient } from "@emailsvc/provider";
import { rpcConsumer } from "../src/consumers/rpc.consumer";
import { sendConsumer } from "../src/consumers/send.consumer";
import { createSemaphore } from "../src/infra/semaphore";
import type { SendActivityDeps } from "../src/use-cases/send-activity";
import { activityRow, type Harness, insertSend, simMessages, startHarness } from "./harness";

jest.setTimeout(60_000);
let h: Harness;
let proxy: http.Server;
let proxyUrl: string;
/** How long the proxy holds SendEmail's answer after the simulator gave it (0: not at all). */
let holdMs = 0;

beforeAll(async () => {
  h = await startHarness();
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const answer = await fetch(`${h.simUrl}${req.url}`, {
          method: req.method,
          headers: { "content-type": req.headers["content-type"] ?? "application/json" },
          ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
        });
        const body = Buffer.from(await answer.arrayBuffer());
        if (holdMs && req.url?.includes("/outbound-emails")) await new Promise((r) => setTimeout(r, holdMs));
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" });
        res.end(body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await h.close();
});
beforeEach(async () => {
  holdMs = 0;
  await fetch(`${h.simUrl}/_sim/reset`, { method: "POST" });
});

/** The worker's deps with SES behind the proxy (or at `endpoint`) and a short request timeout. */
const viaProxy = (endpoint = proxyUrl): SendActivityDeps => ({
  ...h.deps,
  ses: createSesClient({
    region: "us-east-1",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    endpoint,
    requestTimeoutMs: 500,
    maxAttempts: 1,
  }),
});
const ctx = (attempt: number) => ({ attempt, redelivered: attempt > 1, headers: {}, routingKey: "x" });
const claims = async (id: string) =>
  (
    await h.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM send_claims WHERE activity_id = $1",
      [id],
    )
  ).rows[0]!.n;

describe("a provider call accepted by SES whose answer was lost", () => {
  it("keeps its claim (outcome unknown) instead of giving it back: the redelivered request sends nobody twice", async () => {
    const s = await insertSend(h, { recipients: ["lost-answer@example.com"] });
    const envelope = makeEnvelope(
      RoutingKeys.emailSendRequested,
      { activityIds: s.activityIds },
      { projectId: s.projectId },
    );
    holdMs = 1500;
    // the call times out after SES took the email: not a failure to retry
    await sendConsumer(viaProxy(), createSemaphore(20)).handle(envelope, ctx(1));
    expect(await simMessages(h, "lost-answer@example.com")).toHaveLength(1);
    const id = s.activityIds[0]!;
    // still `sending`, with its claim: the Send notification (or the reconciler after its window) settles it
    expect(await activityRow(h, id)).toMatchObject({ status: "sending", provider_message_id: null });
    expect(await claims(id)).toBe(1);
    // the message is delivered again (a retry, a broker redelivery) with the provider answering at once
    holdMs = 0;
    await sendConsumer(h.deps, createSemaphore(20)).handle(envelope, ctx(2));
    expect(await simMessages(h, "lost-answer@example.com")).toHaveLength(1);
  });

  it("still gives back a claim whose call never left (connection refused), and the retry sends it once", async () => {
    const s = await insertSend(h, { recipients: ["refused@example.com"] });
    const envelope = makeEnvelope(
      RoutingKeys.emailSendRequested,
      { activityIds: s.activityIds },
      { projectId: s.projectId },
    );
    // a port nothing listens on
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(
      sendConsumer(viaProxy(`http://127.0.0.1:${port}`), createSemaphore(20)).handle(envelope, ctx(1)),
    ).rejects.toThrow(RetryableError);
    expect(await activityRow(h, s.activityIds[0]!)).toMatchObject({ status: "queued" });
    await sendConsumer(h.deps, createSemaphore(20)).handle(envelope, ctx(2));
    expect(await activityRow(h, s.activityIds[0]!)).toMatchObject({ status: "sent" });
    expect(await simMessages(h, "refused@example.com")).toHaveLength(1);
  });

  it("a synchronous send whose answer was lost is still failed at once (its caller is told 504), sent once", async () => {
    const s = await insertSend(h, { recipients: ["sync-lost@example.com"] });
    holdMs = 1500;
    const reply = await rpcConsumer(viaProxy())(
      makeEnvelope(RoutingKeys.emailSendRpc, { activityId: s.activityIds[0]! }, { projectId: s.projectId }),
    );
    expect(reply).toMatchObject({ status: "failed", errorKind: "timeout" });
    expect(await activityRow(h, s.activityIds[0]!)).toMatchObject({
      status: "failed",
      provider_message_id: null,
    });
    expect(await simMessages(h, "sync-lost@example.com")).toHaveLength(1);
  });
});

describe("an accepted send whose answer could not be recorded at once (a database restart)", () => {
  it("keeps the provider's answer and records it when the database is back: sent, with its id, once", async () => {
    const s = await insertSend(h, { recipients: ["db-down@example.com"] });
    let failures = 2;
    const deps: SendActivityDeps = {
      ...h.deps,
      statements: {
        ...h.deps.statements,
        markSent: (a, id) =>
          failures-- > 0
            ? Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"))
            : h.deps.statements.markSent(a, id),
      },
    };
    const envelope = makeEnvelope(
      RoutingKeys.emailSendRequested,
      { activityIds: s.activityIds },
      { projectId: s.projectId },
    );
    await sendConsumer(deps, createSemaphore(20)).handle(envelope, ctx(1));
    const sent = await simMessages(h, "db-down@example.com");
    expect(sent).toHaveLength(1);
    const row = await activityRow(h, s.activityIds[0]!);
    expect(row).toMatchObject({ status: "sent" });
    expect(row.provider_message_id).toBeTruthy();
    expect(await claims(s.activityIds[0]!)).toBe(0);
  });
});
