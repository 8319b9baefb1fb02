// Idempotency-Key on the v1 send endpoints (spec 5, 8; ARCHITECTURE.md "Redis"). Real: Redis (and a closed
// port for "Redis down"), PostgreSQL (the idempotency_keys backstop), RabbitMQ, s3rver, a slow attachment host.
import request from "supertest";
import { createRedisIdempotencyStore, REPLAYED_HEADER } from "@emailsvc/http";
import {
  bearer,
  count,
  makeProject,
  PDF_BYTES,
  startFileServer,
  startHarness,
  startS3,
  testEnv,
  type Harness,
  type TestProject,
} from "./helpers";

let up: Harness;
let down: Harness;
let s3: Awaited<ReturnType<typeof startS3>>;
let slow: Awaited<ReturnType<typeof startFileServer>>;
let p: TestProject;
const run = Date.now().toString(36);
let n = 0;
const newKey = () => `key-${run}-${++n}`;

beforeAll(async () => {
  s3 = await startS3();
  slow = await startFileServer((_req, res) => {
    setTimeout(() => {
      res.setHeader("content-type", "application/pdf");
      res.end(PDF_BYTES);
    }, 600);
  });
  up = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint, ATTACHMENT_URL_ALLOW_PRIVATE: "true" }));
  // Port 1 on loopback: connection refused at once, as for a Redis that is down.
  down = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint, REDIS_URL: "redis://127.0.0.1:1/0" }), {
    redisDown: true,
  });
});
afterAll(async () => {
  await down?.close();
  await up?.close();
  await slow?.close();
  await s3?.close();
});
beforeEach(async () => {
  p = await makeProject(up.deps);
});

const body = (extra: Record<string, unknown> = {}) => ({
  recipient_email: "ann@example.org",
  sender_email: p.sender,
  html_body: "<p>x</p>",
  ...extra,
});
const send = (
  h: Harness,
  key: string | undefined,
  b: unknown,
  apiKey = p.liveKey,
  path = "/v1/send-email",
) => {
  const r = request(h.app).post(path).set(bearer(apiKey));
  if (key !== undefined) r.set("Idempotency-Key", key);
  return r.send(b as object);
};
const emails = (projectId: string) => count(up.deps, "email_messages WHERE project_id = $1", [projectId]);

describe("with Redis", () => {
  it("an identical repeat replays the first answer with Idempotency-Replayed: true and sends nothing new", async () => {
    const key = newKey();
    const first = await send(up, key, body({ subject: "a", data: { x: 1, y: 2 } }));
    expect(first.status).toBe(200);
    expect(first.headers["idempotency-replayed"]).toBeUndefined();
    // Same JSON with keys in another order is the same request.
    const again = await send(up, key, {
      data: { y: 2, x: 1 },
      subject: "a",
      html_body: "<p>x</p>",
      sender_email: p.sender,
      recipient_email: "ann@example.org",
    });
    expect(again.status).toBe(200);
    expect(again.headers["idempotency-replayed"]).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await emails(p.projectId)).toBe(1);
    expect(REPLAYED_HEADER).toBe("Idempotency-Replayed");
  });

  it("works the same with a test key, scoped per project, and on send-template-email", async () => {
    const key = newKey();
    const a = await send(up, key, body(), p.testKey);
    const b = await send(up, key, body(), p.testKey);
    expect(b.headers["idempotency-replayed"]).toBe("true");
    expect(b.body.email_id).toBe(a.body.email_id);
    // The same key and body with the live key is another request: never a live send answered by a test send.
    const live = await send(up, key, body(), p.liveKey);
    expect(live.status).toBe(422);
    expect(live.body.error).toBe("This Idempotency-Key was already used with a different request");

    const other = await makeProject(up.deps);
    const theirs = await send(up, key, { ...body(), sender_email: other.sender }, other.liveKey);
    expect(theirs.status).toBe(200);
    expect(theirs.headers["idempotency-replayed"]).toBeUndefined();

    const t = await up.deps.db.prisma.template.create({
      data: { projectId: p.projectId, internalId: 1, name: "t", subject: "s", html: "h" },
    });
    const tkey = newKey();
    const tb = { recipient_email: "ann@example.org", sender_email: p.sender, template_id: t.id };
    const t1 = await send(up, tkey, tb, p.liveKey, "/v1/send-template-email");
    const t2 = await send(up, tkey, tb, p.liveKey, "/v1/send-template-email");
    expect(t1.status).toBe(200);
    expect(t2.headers["idempotency-replayed"]).toBe("true");
    expect(t2.body).toEqual(t1.body);
    // The same key on another endpoint is another request.
    expect((await send(up, tkey, tb)).status).toBe(422);
  });

  it("422 for the same key with a different body", async () => {
    const key = newKey();
    expect((await send(up, key, body({ subject: "one" }))).status).toBe(200);
    const res = await send(up, key, body({ subject: "two" }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      error: "This Idempotency-Key was already used with a different request",
    });
    expect(await emails(p.projectId)).toBe(1);
  });

  it("the same request with a trailing slash or another case (routed to the same handler) replays, not a 422", async () => {
    const key = newKey();
    const b = body({ subject: "slash" });
    expect((await send(up, key, b)).status).toBe(200);
    for (const path of ["/v1/send-email/", "/V1/Send-Email"]) {
      const again = await send(up, key, b, p.liveKey, path);
      expect({ path, status: again.status, replayed: again.headers[REPLAYED_HEADER.toLowerCase()] }).toEqual({
        path,
        status: 200,
        replayed: "true",
      });
    }
    expect(await emails(p.projectId)).toBe(1);
  });

  it("an in-flight marker whose request died expires: a retry is not refused with 409 for 24 h", async () => {
    const store = createRedisIdempotencyStore(up.deps.redis, { inFlightTtlMs: 300 });
    const key = newKey();
    expect((await store.begin(p.projectId, key, "f")).kind).toBe("started");
    expect((await store.begin(p.projectId, key, "f")).kind).toBe("in_flight");
    // the request that set it never completes nor releases it (its replica crashed)
    await new Promise((r) => setTimeout(r, 400));
    expect((await store.begin(p.projectId, key, "f")).kind).toBe("started");
    // a completed answer keeps the full window
    await store.complete(p.projectId, key, "t", "f", { status: 200, body: { ok: true } });
    await new Promise((r) => setTimeout(r, 400));
    expect((await store.begin(p.projectId, key, "f")).kind).toBe("replay");
  });

  it("409 while the first request with the key is still in flight", async () => {
    const key = newKey();
    const b = body({ attachments: [{ filename: "a.pdf", url: `${slow.url}/a.pdf` }] });
    const first = send(up, key, b).then((r) => r);
    await new Promise((r) => setTimeout(r, 200));
    const second = await send(up, key, b);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      success: false,
      error: "A request with this Idempotency-Key is still being processed",
    });
    expect((await first).status).toBe(200);
    expect(await emails(p.projectId)).toBe(1);
  });

  it("only 2xx answers are kept: after an error the same key can be used again", async () => {
    const key = newKey();
    const b = body({ sender_email: "later@verified-later.example" });
    expect((await send(up, key, b)).status).toBe(403);
    await up.deps.db.prisma.senderProfile.create({
      data: {
        projectId: p.projectId,
        senderEmail: "later@verified-later.example",
        senderName: "L",
        emailVerified: true,
      },
    });
    const ok = await send(up, key, b);
    expect(ok.status).toBe(200);
    expect(ok.headers["idempotency-replayed"]).toBeUndefined();
  });

  it("a key longer than 128 characters is a 400; 128 is fine", async () => {
    const long = await send(up, "k".repeat(129), body());
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ success: false, error: "Idempotency-Key must be 1 to 128 characters" });
    expect((await send(up, `${run}-${"k".repeat(128 - run.length - 1)}`, body())).status).toBe(200);
  });

  it("counts a UTF-8 key's characters, not its bytes, and refuses the header given twice", async () => {
    // superagent sends the header's UTF-8 bytes (2 per "é"), as a browser or curl would.
    const key = `${run}-${"é".repeat(128 - run.length - 1)}`;
    expect((await send(up, key, body())).status).toBe(200);
    expect((await send(up, `${key}é`, body())).status).toBe(400);

    const twice = await request(up.app)
      .post("/v1/send-email")
      .set(bearer(p.liveKey))
      .set("Idempotency-Key", [newKey(), newKey()] as unknown as string)
      .send(body());
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual({ success: false, error: "Idempotency-Key must be given once" });
  });

  it("dry-run answers are cached and replayed too", async () => {
    const key = newKey();
    const a = await send(up, key, body({ dry_run: true }));
    const b = await send(up, key, body({ dry_run: true }));
    expect(b.headers["idempotency-replayed"]).toBe("true");
    expect(b.body).toEqual(a.body);
  });
});

describe("with Redis down", () => {
  it("requests go through, and the database row still makes a repeat replay the first email", async () => {
    const key = newKey();
    const started = Date.now();
    const first = await send(down, key, body());
    expect(first.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    const again = await send(down, key, body());
    expect(again.status).toBe(200);
    expect(again.headers["idempotency-replayed"]).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await emails(p.projectId)).toBe(1);

    const row = await up.deps.db.prisma.idempotencyKey.findUniqueOrThrow({
      where: { projectId_key: { projectId: p.projectId, key } },
    });
    expect(row).toMatchObject({ responseStatus: 200, emailMessageId: first.body.email_id });

    const different = await send(down, key, body({ subject: "changed" }));
    expect(different.status).toBe(422);
    expect(await emails(p.projectId)).toBe(1);
  });

  it("concurrent identical requests produce one email", async () => {
    const key = newKey();
    const results = await Promise.all(Array.from({ length: 5 }, () => send(down, key, body())));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.body.email_id)).size).toBe(1);
    expect(results.filter((r) => r.headers["idempotency-replayed"] === "true")).toHaveLength(4);
    expect(await emails(p.projectId)).toBe(1);
    expect(await count(up.deps, "activities WHERE project_id = $1", [p.projectId])).toBe(1);
  });

  it("a repeated batch replays the stored answer from the database row; another body with the key is a 422", async () => {
    const key = newKey();
    const batch = (n: number) => ({
      sender: p.sender,
      subject: "Hi",
      html: "<p>Hi</p>",
      recipients: Array.from({ length: n }, (_, i) => ({ email: `b${i}@example.org`, data: { i } })),
    });
    const first = await send(down, key, batch(3), p.liveKey, "/v1/send-batch");
    expect(first.status).toBe(200);
    const again = await send(down, key, batch(3), p.liveKey, "/v1/send-batch");
    expect(again.status).toBe(200);
    expect(again.headers["idempotency-replayed"]).toBe("true");
    expect(again.body).toEqual(first.body);
    const different = await send(down, key, batch(4), p.liveKey, "/v1/send-batch");
    expect(different.status).toBe(422);
    expect(await count(up.deps, "batches WHERE project_id = $1", [p.projectId])).toBe(1);
    expect(await count(up.deps, "activities WHERE project_id = $1", [p.projectId])).toBe(3);
    expect(await count(up.deps, "project_usage WHERE project_id = $1 AND live_sent = 3", [p.projectId])).toBe(
      1,
    );
  });

  it("without the header nothing is deduplicated", async () => {
    await send(down, undefined, body());
    await send(down, undefined, body());
    expect(await emails(p.projectId)).toBe(2);
  });
});
