import { AsyncLocalStorage } from "node:async_hooks";
import { spawnTs } from "@emailsvc/testing";
import { randomUUID } from "node:crypto";
import path from "node:path";
import {
  Exchanges,
  makeEnvelope,
  messagingTopology,
  Queues,
  RoutingKeys,
  type ProjectId,
  type Topology,
} from "@emailsvc/contracts";
import { signUnsubscribe, verifyTrackedUrl } from "@emailsvc/content";
import { createOutboxStore, createSendStatements, type OutboxRecord } from "@emailsvc/db";
import { createBroker, RetryableError } from "@emailsvc/messaging";
import { createLogger } from "@emailsvc/observability";
import { rpcConsumer } from "../src/consumers/rpc.consumer";
import { bulkSendConsumer, sendConsumer } from "../src/consumers/send.consumer";
import { createRateLimiter } from "../src/infra/rate-limiter";
import { createSemaphore } from "../src/infra/semaphore";
import { sendActivity } from "../src/use-cases/send-activity";
import {
  activityRow,
  type Harness,
  insertSend,
  simMessages,
  startHarness,
  TRACKING,
  waitFor,
} from "./harness";

jest.setTimeout(60_000);
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(async () => {
  await fetch(`${h.simUrl}/_sim/reset`, { method: "POST" });
  await fetch(`${h.simUrl}/_sim/config`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ latencyMs: 0, maxSendRate: 0, fault: null }),
  });
});

const outboxCount = async (activityIds: string[]) =>
  (
    await h.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbox_messages WHERE routing_key = 'email.sent' AND payload->'payload'->>'activityId' = ANY($1)",
      [activityIds],
    )
  ).rows[0]!.n;

const publishSend = (activityIds: string[], projectId: ProjectId) =>
  h.broker.publish(
    Exchanges.emailCommands,
    RoutingKeys.emailSendRequested,
    makeEnvelope(RoutingKeys.emailSendRequested, { activityIds }, { projectId }),
  );

describe("send-worker (real PostgreSQL, Redis, s3rver, provider simulator)", () => {
  it("builds the MIME: token Reply-To, pixel, signed links, text part, headers, attachments, cc once", async () => {
    const pdf = Buffer.from("%PDF-1.4 test");
    const s = await insertSend(h, {
      recipients: ["a@example.com", "b@example.com"],
      cc: ["c@example.com"],
      bcc: ["d@example.com"],
      headers: { "List-Unsubscribe": "<https://example.com/u>" },
      attachments: [{ filename: "invoice.pdf", contentType: "application/pdf", content: pdf }],
    });
    for (const id of s.activityIds) expect((await sendActivity(h.deps, id)).kind).toBe("sent");
    const [a] = await simMessages(h, "a@example.com");
    const [b] = await simMessages(h, "b@example.com");
    const first = a!;
    expect(first.raw).toMatch(/^Reply-To: "Sender Name" <r-[0-9a-f]{8}@inbound\.example\.test>$/m);
    expect(first.raw).toContain("From: Sender Name <sender@example.com>");
    expect(first.raw).toContain("List-Unsubscribe: <https://example.com/u>");
    expect(first.raw).toContain("Content-Type: text/plain");
    expect(first.raw).toContain("filename=invoice.pdf");
    expect(first.raw).toContain(pdf.toString("base64"));
    expect(first.raw).not.toMatch(/^Bcc:/m);
    const html = first.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    expect(html).toContain(`${TRACKING.baseUrl}/t/o/${s.activityIds[0]}`);
    const click = /href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1]!.replace(/&amp;/g, "&");
    const u = new URL(click);
    expect(
      verifyTrackedUrl(
        TRACKING.secret,
        s.activityIds[0]!,
        u.searchParams.get("url")!,
        u.searchParams.get("sig")!,
      ),
    ).toBe(true);
    expect(u.searchParams.get("url")).toBe("https://shop.example/p?a=1&b=2");
    // cc/bcc belong to the message: only the first recipient's email carries them
    expect(first.cc).toEqual(["c@example.com"]);
    expect(first.bcc).toEqual(["d@example.com"]);
    expect(b!.cc).toEqual([]);
    expect(b!.bcc).toEqual([]);
    const row = await activityRow(h, s.activityIds[0]!);
    expect(row).toMatchObject({ status: "sent" });
    expect(row.provider_message_id).toBeTruthy();
    const events = await h.db.pool.query(
      "SELECT payload FROM outbox_messages WHERE routing_key = 'email.sent' AND payload->'payload'->>'activityId' = $1",
      [s.activityIds[0]],
    );
    expect(events.rowCount).toBe(1);
  });

  it("hands SES every envelope address in ASCII (punycode domains) and a one-line sender name", async () => {
    const s = await insertSend(h, {
      recipients: ["idn@bücher.example"],
      cc: ["cc@bücher.example"],
      bcc: ["bcc@müller.example"],
      fromName: 'Evil "Q"\r\nBcc: evil2@x.example',
    });
    expect((await sendActivity(h.deps, s.activityIds[0]!)).kind).toBe("sent");
    const [m] = (await simMessages(h)).filter((x) => x.to.some((t) => t.startsWith("idn@")));
    expect(m!.to).toEqual(["idn@xn--bcher-kva.example"]);
    expect(m!.cc).toEqual(["cc@xn--bcher-kva.example"]);
    expect(m!.bcc).toEqual(["bcc@xn--mller-kva.example"]);
    // one line: a quoted name without the CR/LF (nodemailer encodes a name only when it is not ASCII)
    expect(m!.raw).toMatch(/^From: "Evil \\"Q\\" Bcc: evil2@x\.example" <sender@example\.com>$/m);
    expect(m!.raw).toMatch(/^Reply-To: "Evil \\"Q\\" Bcc: evil2@x\.example" <r-/m);
  });

  it("writes email.sent to the outbox only when the project has a webhook URL for the send's mode", async () => {
    const s = await insertSend(h, { recipients: ["nohook@example.com"], webhookUrl: null });
    expect((await sendActivity(h.deps, s.activityIds[0]!)).kind).toBe("sent");
    expect(await activityRow(h, s.activityIds[0]!)).toMatchObject({ status: "sent" });
    const events = await h.db.pool.query(
      "SELECT 1 FROM outbox_messages WHERE payload->'payload'->>'activityId' = $1",
      [s.activityIds[0]],
    );
    expect(events.rowCount).toBe(0);
  });

  it("renders each batch recipient's data with the template syntax", async () => {
    const s = await insertSend(h, {
      recipients: ["x@example.com", "y@example.com"],
      html: '<p>Hi {name || "friend"}</p>',
      templateId: "00000000-0000-4000-8000-000000000001",
      data: [{ name: "<Ann>" }, {}],
      replyTokens: false,
    });
    for (const id of s.activityIds) await sendActivity(h.deps, id);
    const x = (await simMessages(h, "x@example.com"))[0]!.raw.replace(/=\r?\n/g, "");
    const y = (await simMessages(h, "y@example.com"))[0]!.raw.replace(/=\r?\n/g, "");
    expect(x).toContain("Hi &lt;Ann&gt;");
    expect(y).toContain("Hi friend");
    expect(x).not.toMatch(/^Reply-To:/m);
  });

  it("gives bulk batch mail a one-click List-Unsubscribe and a footer; transactional mail neither", async () => {
    const bulk = await insertSend(h, { recipients: ["bulk@example.com"], batch: { emailType: "marketing" } });
    const receipt = await insertSend(h, {
      recipients: ["receipt@example.com"],
      batch: { emailType: "transactional" },
    });
    const single = await insertSend(h, { recipients: ["single@example.com"] });
    for (const s of [bulk, receipt, single]) await sendActivity(h.deps, s.activityIds[0]!);
    // quoted-printable soft breaks joined, folded header lines unfolded
    const raw = async (to: string) =>
      (await simMessages(h, to))[0]!.raw.replace(/=\r?\n/g, "").replace(/\r\n(?=[ \t])/g, "");
    const b = await raw("bulk@example.com");
    const url = `${h.deps.tracking.baseUrl.replace(/\/$/, "")}/t/u/${bulk.activityIds[0]}?sig=${signUnsubscribe(h.deps.tracking.secret, bulk.activityIds[0]!)}`;
    expect(b).toContain(`List-Unsubscribe: <${url}>`);
    expect(b).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    // the footer in both parts, its link not rewritten through the click endpoint
    expect(b).toContain(`Unsubscribe: ${url.replace(/=/g, "=3D")}`); // quoted-printable
    expect(b).toContain("You received this email from Sender Name (sender@example.com).");
    expect(b).toContain(`href=3D"${url.replace(/=/g, "=3D")}"`);
    for (const to of ["receipt@example.com", "single@example.com"]) {
      const r = await raw(to);
      expect(r).not.toMatch(/List-Unsubscribe|Unsubscribe:/);
    }
    // a sender name with a line break stays on the footer's line (no line of its own, e.g. a fake link)
    const odd = await insertSend(h, {
      recipients: ["odd@example.com"],
      batch: { emailType: "marketing" },
      fromName: "Shop\r\nUnsubscribe: https://evil.example/",
    });
    await sendActivity(h.deps, odd.activityIds[0]!);
    const o = await raw("odd@example.com");
    expect(o).toContain(
      "You received this email from Shop Unsubscribe: https://evil.example/ (sender@example.com).",
    );
    expect(o).not.toMatch(/^Unsubscribe: https:\/\/evil/m);
  });

  it("the copies go with the first recipient that is sent, not a cancelled one (suppressed at hand-over)", async () => {
    const s = await insertSend(h, {
      recipients: ["gone@example.com", "stays@example.com"],
      cc: ["copy@example.com"],
      bcc: ["blind@example.com"],
    });
    await h.db.pool.query("UPDATE activities SET status = 'cancelled' WHERE id = $1", [s.activityIds[0]]);
    await sendActivity(h.deps, s.activityIds[1]!);
    const sent = (await simMessages(h, "stays@example.com"))[0]!;
    expect([sent.cc, sent.bcc]).toEqual([["copy@example.com"], ["blind@example.com"]]);
  });

  it("a redelivered send request sends nobody twice", async () => {
    const consumer = await h.broker.consume(sendConsumer(h.deps, createSemaphore(20)), { prefetch: 20 });
    try {
      const s = await insertSend(h, { recipients: ["once@example.com"] });
      await publishSend(s.activityIds, s.projectId);
      await publishSend(s.activityIds, s.projectId);
      await waitFor(async () => (await activityRow(h, s.activityIds[0]!)).status === "sent");
      await new Promise((r) => setTimeout(r, 500));
      expect(await simMessages(h, "once@example.com")).toHaveLength(1);
    } finally {
      await consumer.close();
    }
  });

  it("group-commits the claims and mark-sents of concurrent sends: each activity claimed and sent once", async () => {
    const s = await insertSend(h, {
      recipients: Array.from({ length: 12 }, (_, i) => `many${i}@example.com`),
    });
    // Every activity asked for twice at once: the same statement may carry both, and only one may win the claim.
    const outcomes = await Promise.all(
      [...s.activityIds, ...s.activityIds].map((id) => sendActivity(h.deps, id)),
    );
    expect(outcomes.filter((o) => o.kind === "sent")).toHaveLength(12);
    expect(outcomes.filter((o) => o.kind === "skipped")).toHaveLength(12);
    for (const id of s.activityIds) {
      const row = await activityRow(h, id);
      expect(row.status).toBe("sent");
      expect(row.provider_message_id).toBeTruthy();
    }
    for (let i = 0; i < 12; i++) expect(await simMessages(h, `many${i}@example.com`)).toHaveLength(1);
    expect(await outboxCount(s.activityIds)).toBe(12);
  });

  it("with a running relay, email.sent goes to it from the mark-sent, held from the poll; without, due at once", async () => {
    const handed: OutboxRecord[] = [];
    let relayRuns = true;
    const statements = createSendStatements(h.db, {
      handoff: () => (relayRuns ? (rows) => void handed.push(...rows) : null),
    });
    const kicks = jest.fn();
    const deps = { ...h.deps, statements, kickOutbox: kicks };
    const s = await insertSend(h, { recipients: ["held1@example.com", "held2@example.com"] });
    const outcomes = await Promise.all(s.activityIds.map((id) => sendActivity(deps, id)));
    expect(outcomes.map((o) => o.kind)).toEqual(["sent", "sent"]);
    expect(kicks).not.toHaveBeenCalled(); // nothing for the poll to find
    expect(handed.map((r) => [r.exchange, r.routingKey])).toEqual([
      [Exchanges.emailEvents, RoutingKeys.emailSent],
      [Exchanges.emailEvents, RoutingKeys.emailSent],
    ]);
    expect(
      handed.map((r) => (r.payload as { payload: { activityId: string } }).payload.activityId).sort(),
    ).toEqual([...s.activityIds].sort());
    // stored as the relay will remove them, held past the poll's reach (the lease of a relay that dies)
    const rows = await h.db.pool.query<{ id: string; payload: unknown; held: boolean }>(
      `SELECT id, payload, available_at > now() + interval '5 seconds' AS held FROM outbox_messages
        WHERE id = ANY($1::uuid[]) ORDER BY id`,
      [handed.map((r) => r.id)],
    );
    expect(rows.rows.map((r) => r.held)).toEqual([true, true]);
    expect(rows.rows.map((r) => r.payload)).toEqual(
      [...handed].sort((a, b) => a.id.localeCompare(b.id)).map((r) => JSON.parse(JSON.stringify(r.payload))),
    );
    const polled: OutboxRecord[] = [];
    await createOutboxStore(h.db.pool).relayBatch(500, async (r) => void polled.push(...r));
    expect(polled.filter((r) => handed.some((x) => x.id === r.id))).toEqual([]);

    relayRuns = false;
    const later = await insertSend(h, { recipients: ["due@example.com"] });
    expect((await sendActivity(deps, later.activityIds[0]!)).kind).toBe("sent");
    expect(kicks).toHaveBeenCalledTimes(1);
    const due = await h.db.pool.query(
      "SELECT available_at <= now() AS due FROM outbox_messages WHERE payload->'payload'->>'activityId' = $1",
      [later.activityIds[0]],
    );
    expect(due.rows).toEqual([{ due: true }]);
    expect(handed).toHaveLength(2);
  });

  it("one activity whose send throws costs the others of its message nothing, and is given up on the last attempt", async () => {
    const s = await insertSend(h, {
      recipients: ["fine1@example.com", "boom@example.com", "fine2@example.com"],
    });
    const bad = s.activityIds[1]!;
    // a database error outside the provider call, for one activity only
    const deps = {
      ...h.deps,
      statements: {
        ...h.deps.statements,
        load: (id: string) =>
          id === bad ? Promise.reject(new Error("connection terminated")) : h.deps.statements.load(id),
      },
    };
    const consume = sendConsumer(deps, createSemaphore(20));
    const envelope = makeEnvelope(
      RoutingKeys.emailSendRequested,
      { activityIds: s.activityIds },
      { projectId: s.projectId },
    );
    const ctx = (attempt: number) => ({ attempt, redelivered: false, headers: {}, routingKey: "x" });
    await expect(consume.handle(envelope, ctx(1))).rejects.toThrow(RetryableError);
    expect((await activityRow(h, s.activityIds[0]!)).status).toBe("sent");
    expect((await activityRow(h, s.activityIds[2]!)).status).toBe("sent");
    expect((await activityRow(h, bad)).status).toBe("queued");
    // the last attempt: returns (the message is acked), and the activity is failed rather than left queued
    await consume.handle(envelope, ctx(99));
    expect(await activityRow(h, bad)).toMatchObject({ status: "failed" });
    expect(await simMessages(h, "fine1@example.com")).toHaveLength(1);
    expect(await simMessages(h, "boom@example.com")).toHaveLength(0);
  });

  it("a bulk send waiting for its rate slot holds no concurrency place (the place is for the send itself)", async () => {
    // Held through the wait, each of the lane's places sat on a slot booked up to SEND_BULK_MAX_AHEAD_MS ahead,
    // which capped a campaign at about 100 sends/s whatever the rate (e84e891). The places are told apart from the
    // waits by where the wait is asked from: inside a place or not.
    const s = await insertSend(h, {
      recipients: Array.from({ length: 6 }, (_, i) => `slot${i}@example.com`),
    });
    const inPlace = new AsyncLocalStorage<true>();
    const waits = { outside: 0, inPlace: 0 };
    const count = () => (inPlace.getStore() ? waits.inPlace++ : waits.outside++);
    const limiter = createRateLimiter(h.redis, { perSecond: 20, key: `rate-test:${randomUUID()}` });
    const deps = {
      ...h.deps,
      limiter: {
        ...limiter,
        reserve: () => (count(), limiter.reserve()),
        reserveBulk: () => (count(), limiter.reserveBulk()),
      },
    };
    const places = createSemaphore(2);
    const run = <T>(fn: () => Promise<T>) => places(() => inPlace.run(true, fn));
    const envelope = makeEnvelope(
      RoutingKeys.emailBulkSendRequested,
      { activityIds: s.activityIds },
      { projectId: s.projectId },
    );
    await bulkSendConsumer(deps, run).handle(envelope, {
      attempt: 1,
      redelivered: false,
      headers: {},
      routingKey: RoutingKeys.emailBulkSendRequested,
    });
    expect(waits).toEqual({ outside: 6, inPlace: 0 });
    for (const id of s.activityIds) expect((await activityRow(h, id)).status).toBe("sent");
    for (let i = 0; i < 6; i++) expect(await simMessages(h, `slot${i}@example.com`)).toHaveLength(1);
  });

  it("retries provider throttling with delay, never counting it as failed", async () => {
    // short retry delays so the test runs in seconds; the production policy is in contracts
    const topology: Topology = {
      ...messagingTopology,
      queues: messagingTopology.queues.map((q) =>
        q.name === Queues.sendWorkerSend ? { ...q, retry: { delaysMs: [400], maxAttempts: 20 } } : q,
      ),
    };
    const broker = createBroker({
      url: process.env.RABBITMQ_URL!,
      name: "throttle",
      topology,
      logger: createLogger({ service: "t", level: "silent" }),
    });
    await broker.ready();
    await fetch(`${h.simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ maxSendRate: 2 }),
    });
    const consumer = await broker.consume(sendConsumer(h.deps, createSemaphore(20)), {
      prefetch: 20,
    });
    try {
      const s = await insertSend(h, {
        recipients: [
          "t1@example.com",
          "t2@example.com",
          "t3@example.com",
          "t4@example.com",
          "t5@example.com",
          "t6@example.com",
        ],
      });
      await broker.publish(
        Exchanges.emailCommands,
        RoutingKeys.emailSendRequested,
        makeEnvelope(
          RoutingKeys.emailSendRequested,
          { activityIds: s.activityIds },
          { projectId: s.projectId },
        ),
      );
      await waitFor(async () => {
        const r = await h.db.pool.query(
          "SELECT count(*)::int AS n FROM activities WHERE email_message_id = $1 AND status = 'sent'",
          [s.messageId],
        );
        return r.rows[0].n === 6;
      });
      const stats = (await (await fetch(`${h.simUrl}/_sim/stats`)).json()) as {
        throttledCount: number;
        sendCount: number;
      };
      expect(stats.throttledCount).toBeGreaterThan(0);
      expect(stats.sendCount).toBe(6);
      const failed = await h.db.pool.query(
        "SELECT count(*)::int AS n FROM activities WHERE email_message_id = $1 AND status = 'failed'",
        [s.messageId],
      );
      expect(failed.rows[0].n).toBe(0);
    } finally {
      await consumer.close();
      await broker.close();
    }
  });

  it("a permanent provider error marks the activity failed and publishes email.failed", async () => {
    await fetch(`${h.simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        fault: {
          count: 1,
          status: 400,
          errorType: "MessageRejected",
          message: "Email address is not verified.",
          operation: "SendEmail",
        },
      }),
    });
    const s = await insertSend(h, { recipients: ["rejected@example.com"] });
    const outcome = await sendActivity(h.deps, s.activityIds[0]!);
    expect(outcome.kind).toBe("failed");
    expect(await activityRow(h, s.activityIds[0]!)).toMatchObject({ status: "failed" });
    const events = await h.db.pool.query(
      "SELECT 1 FROM outbox_messages WHERE routing_key = 'email.failed' AND payload->'payload'->>'activityId' = $1",
      [s.activityIds[0]],
    );
    expect(events.rowCount).toBe(1);
  });

  it("a synchronous send never outlives its caller: no call without time left, and the call bounded by it", async () => {
    const rpc = rpcConsumer({ ...h.deps, providerTimeoutMs: 10_000 });
    const ask = (activityId: string, projectId: ProjectId, inMs: number) =>
      rpc(makeEnvelope(RoutingKeys.emailSendRpc, { activityId, deadline: Date.now() + inMs }, { projectId }));
    // 1.5 s left: less than a call needs plus the reply's margin, so it is not made (certainly not sent); the
    // activity stays queued for public-api to cancel and give back to the quota
    const late = await insertSend(h, { recipients: ["late@example.com"] });
    expect(await ask(late.activityIds[0]!, late.projectId, 1500)).toMatchObject({
      status: "queued",
      errorKind: "timeout",
    });
    expect(await simMessages(h, "late@example.com")).toHaveLength(0);
    expect((await activityRow(h, late.activityIds[0]!)).status).toBe("queued");
    // a slow provider (3 s) and 3.5 s left: the call gets 2.5 s, not the client's 10 s, and the answer
    // reaches the caller before its deadline
    await fetch(`${h.simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ latencyMs: 3000 }),
    });
    const slow = await insertSend(h, { recipients: ["slow@example.com"] });
    const t0 = Date.now();
    expect(await ask(slow.activityIds[0]!, slow.projectId, 3500)).toMatchObject({ errorKind: "timeout" });
    expect(Date.now() - t0).toBeLessThan(3200);
    // with time enough, it is sent as before
    const ok = await insertSend(h, { recipients: ["intime@example.com"] });
    expect(await ask(ok.activityIds[0]!, ok.projectId, 15_000)).toMatchObject({ status: "sent" });
  });

  it("answers the synchronous RPC with the provider id, and maps provider errors", async () => {
    const rpc = rpcConsumer(h.deps);
    const ok = await insertSend(h, { recipients: ["rpc@example.com"] });
    const reply = await rpc(
      makeEnvelope(RoutingKeys.emailSendRpc, { activityId: ok.activityIds[0]! }, { projectId: ok.projectId }),
    );
    expect(reply).toMatchObject({ status: "sent" });
    expect(reply.providerMessageId).toBe((await activityRow(h, ok.activityIds[0]!)).provider_message_id);
    await fetch(`${h.simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        fault: {
          count: 5,
          status: 503,
          errorType: "ServiceUnavailable",
          message: "down",
          operation: "SendEmail",
        },
      }),
    });
    const bad = await insertSend(h, { recipients: ["rpc2@example.com"] });
    const failed = await rpc(
      makeEnvelope(
        RoutingKeys.emailSendRpc,
        { activityId: bad.activityIds[0]! },
        { projectId: bad.projectId },
      ),
    );
    // a 503 is no usable answer: failed for the client (502), but whether SES sent it is unknown
    expect(failed).toMatchObject({ status: "failed", errorKind: "transient" });
    expect(await activityRow(h, bad.activityIds[0]!)).toMatchObject({ status: "failed" });
  });

  it("a worker killed mid-send and restarted produces exactly one provider send per activity", async () => {
    await fetch(`${h.simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ latencyMs: 2000 }),
    });
    const s = await insertSend(h, { recipients: ["k1@example.com", "k2@example.com", "k3@example.com"] });
    // node itself with tsx as a loader (the tsx CLI would run the script in a grandchild that SIGKILL misses)
    const child = spawnTs(path.join(__dirname, "fixtures/worker-child.ts"), {
      env: { ...process.env, SIM_URL: h.simUrl, S3_ENDPOINT: h.s3Endpoint },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) =>
      child.stdout!.on("data", (d: Buffer) => d.toString().includes("consuming") && resolve()),
    );
    await publishSend(s.activityIds, s.projectId);
    // the provider has the requests (latency 2 s): kill the worker before it can record the answers
    await waitFor(
      async () =>
        (
          await h.db.pool.query(
            "SELECT count(*)::int AS n FROM activities WHERE email_message_id = $1 AND status = 'sending'",
            [s.messageId],
          )
        ).rows[0].n === 3,
    );
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    // a fresh worker gets the redelivered message
    const consumer = await h.broker.consume(sendConsumer(h.deps, createSemaphore(20)), { prefetch: 20 });
    try {
      await new Promise((r) => setTimeout(r, 4000));
      for (const r of ["k1@example.com", "k2@example.com", "k3@example.com"])
        expect(await simMessages(h, r)).toHaveLength(1);
      // outcome unknown to us: left `sending` for the provider's Send notification to settle (README)
      const statuses = await h.db.pool.query("SELECT status FROM activities WHERE email_message_id = $1", [
        s.messageId,
      ]);
      expect(statuses.rows.map((r) => r.status)).toEqual(["sending", "sending", "sending"]);
    } finally {
      await consumer.close();
    }
  });
  it("a worker killed while its sends wait for rate-limit slots leaves them queued, and they are sent once", async () => {
    await fetch(`${h.simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ latencyMs: 0 }),
    });
    const recipients = Array.from({ length: 6 }, (_, i) => `w${i}@example.com`);
    const s = await insertSend(h, { recipients });
    const child = spawnTs(path.join(__dirname, "fixtures/worker-child.ts"), {
      env: { ...process.env, SIM_URL: h.simUrl, S3_ENDPOINT: h.s3Endpoint, CHILD_RATE_PER_SECOND: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) =>
      child.stdout!.on("data", (d: Buffer) => d.toString().includes("consuming") && resolve()),
    );
    await publishSend(s.activityIds, s.projectId);
    // one per second: kill it once the first went out, with the others waiting for their slots
    await waitFor(async () =>
      (await Promise.all(recipients.map((r) => simMessages(h, r)))).some((m) => m.length),
    );
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const waiting = await h.db.pool.query(
      "SELECT count(*)::int AS n FROM activities WHERE email_message_id = $1 AND status = 'queued'",
      [s.messageId],
    );
    expect(waiting.rows[0].n).toBeGreaterThanOrEqual(3); // not claimed while they waited
    const consumer = await h.broker.consume(sendConsumer(h.deps, createSemaphore(20)), { prefetch: 20 });
    try {
      await waitFor(
        async () => (await Promise.all(recipients.map((r) => simMessages(h, r)))).every((m) => m.length >= 1),
        10_000,
      );
      await new Promise((r) => setTimeout(r, 500));
      for (const r of recipients) expect(await simMessages(h, r)).toHaveLength(1);
      const statuses = await h.db.pool.query(
        "SELECT status FROM activities WHERE email_message_id = $1 AND status NOT IN ('sent', 'sending')",
        [s.messageId],
      );
      expect(statuses.rows).toEqual([]);
    } finally {
      await consumer.close();
    }
  });
});

describe("global rate limiter (real Redis)", () => {
  it("two limiters sharing Redis hand out at most N slots per second, evenly spaced", async () => {
    const key = `rate-test:${Date.now()}`;
    const a = createRateLimiter(h.redis, { perSecond: 10, key });
    const b = createRateLimiter(h.redis, { perSecond: 10, key });
    const times: number[] = [];
    const start = Date.now();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).acquire().then((call) => {
          times.push(Date.now() - start);
          call.answered();
        }),
      ),
    );
    times.sort((x, y) => x - y);
    expect(times[19]!).toBeGreaterThanOrEqual(1800);
    for (let i = 0; i < times.length; i++) {
      const inWindow = times.filter((t) => t >= times[i]! && t < times[i]! + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(11); // 10/s, ±1 for timer granularity at the window edge
    }
  });

  it("holds a send while N calls are unanswered, then until a second after one is answered", async () => {
    const key = `rate-test:${randomUUID()}`;
    const limiter = createRateLimiter(h.redis, { perSecond: 2, key });
    const first = await limiter.dispatch();
    await limiter.dispatch(); // never answered within this test
    let third = false;
    const waiting = limiter.dispatch().then(() => (third = true));
    // However long the provider takes, two unanswered calls fill a limit of 2: a third could arrive with them.
    await new Promise((r) => setTimeout(r, 1500));
    expect(third).toBe(false);
    const answeredAt = Date.now();
    first.answered();
    await waiting;
    // The answered call counts for a second more: it may have arrived at the provider just now.
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(950);
  });

  it("gives a place back at once when the call is not made after all", async () => {
    const key = `rate-test:${randomUUID()}`;
    const limiter = createRateLimiter(h.redis, { perSecond: 1, key });
    (await limiter.dispatch()).unused();
    await limiter.dispatch();
    expect(await h.redis.zcard(`${key}:calls`)).toBe(1);
  });

  it("tells how long each answered call held its place, and nothing for a call not made", async () => {
    const held: number[] = [];
    const limiter = createRateLimiter(h.redis, {
      perSecond: 5,
      key: `rate-test:${randomUUID()}`,
      onAnswered: (ms) => held.push(ms),
    });
    const call = await limiter.dispatch();
    await new Promise((r) => setTimeout(r, 60));
    call.answered();
    call.answered(); // told once
    (await limiter.dispatch()).unused();
    expect(held).toHaveLength(1);
    expect(held[0]).toBeGreaterThanOrEqual(55);
    expect(held[0]).toBeLessThan(5000);
  });

  it("lets an unanswered call of a killed caller age out", async () => {
    const key = `rate-test:${randomUUID()}`;
    // What a worker SIGKILLed mid-call leaves: its entry, never answered.
    const killed = createRateLimiter(h.redis, { perSecond: 1, key, holdMs: 500 });
    await killed.dispatch();
    const ttl = await h.redis.pttl(`${key}:calls`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2500);
    const start = Date.now();
    await createRateLimiter(h.redis, { perSecond: 1, key, holdMs: 500 }).dispatch();
    // held for holdMs as if arriving, plus the second after; then the limit is whole again
    expect(Date.now() - start).toBeGreaterThanOrEqual(1400);
  });

  it("never lets more than N calls be unanswered or answered within a second, across limiters and lanes", async () => {
    const key = `rate-test:${randomUUID()}`;
    const N = 8;
    const limiters = [0, 1, 2].map(() => createRateLimiter(h.redis, { perSecond: N, key, pollMs: 5 }));
    const redisNow = async () => {
      const [sec, usec] = (await h.redis.time()).map(Number) as [number, number];
      return sec * 1000 + usec / 1000;
    };
    // Each call's span on Redis' clock, from after its check passed to before it was answered: inside the span
    // the limiter counted it. A provider's delay that varies call to call is what let arrivals bunch before.
    const spans: { from: number; to: number; arrival: number }[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const call = await limiters[i % 3]!.acquire(i % 2 ? "bulk" : "transactional");
        const from = await redisNow();
        await new Promise((r) => setTimeout(r, (i * 37) % 300));
        const to = await redisNow();
        call.answered();
        spans.push({ from, to, arrival: from + (((i * 53) % 100) / 100) * (to - from) });
      }),
    );
    expect(spans).toHaveLength(30);
    for (const s of spans) {
      const t = s.from;
      const counted = spans.filter((o) => o.from <= t && o.to + 1000 > t).length;
      expect(counted).toBeLessThanOrEqual(N);
      // so however each call's arrival fell within its span, no second at the provider saw more than N
      const arrivals = spans.filter((o) => o.arrival >= s.arrival && o.arrival < s.arrival + 1000).length;
      expect(arrivals).toBeLessThanOrEqual(N);
    }
  });
});
