// POST /v1/send-email (spec 4.1, 5, 7, 8). Real: PostgreSQL, RabbitMQ (outbox relay → a test queue bound to
// email.commands), Redis, s3rver. Faked: nothing; no send-worker runs, so activities stay `queued`.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { MSG_SEND_EMAIL_MISSING } from "@emailsvc/contracts";
import { MSG_INVALID_KEY_PREFIX, MSG_INVALID_OR_MISSING_KEY } from "@emailsvc/http";
import { usagePeriod } from "@emailsvc/sending";
import {
  bearer,
  count,
  makeProject,
  observeSendRequests,
  startHarness,
  startS3,
  suppress,
  testEnv,
  type CommandObserver,
  type Harness,
  type TestProject,
  waitFor,
} from "./helpers";

let h: Harness;
let s3: Awaited<ReturnType<typeof startS3>>;
let observer: CommandObserver;
let p: TestProject;

beforeAll(async () => {
  s3 = await startS3();
  h = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint }));
  observer = await observeSendRequests();
});
afterAll(async () => {
  await observer?.broker.close();
  await h?.close();
  await s3?.close();
});
beforeEach(async () => {
  p = await makeProject(h.deps);
});

const send = (key: string, body: unknown) =>
  request(h.app)
    .post("/v1/send-email")
    .set(bearer(key))
    .send(body as object);
const minimal = () => ({
  recipient_email: "alice@example.org",
  sender_email: p.sender,
  html_body: "<p>Hi</p>",
});
const messagesOf = (projectId: string) => count(h.deps, "email_messages WHERE project_id = $1", [projectId]);

describe("authentication (spec 5)", () => {
  it("401 without a key, with an unknown key and with an unknown prefix", async () => {
    const none = await request(h.app).post("/v1/send-email").send(minimal());
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ success: false, error: MSG_INVALID_OR_MISSING_KEY });
    expect(MSG_INVALID_OR_MISSING_KEY).toBe("Unauthorized: Invalid or missing API key");

    const unknown = await send("sk_live_doesnotexist0000000000000000000000000", minimal());
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ success: false, error: "Unauthorized: Invalid or missing API key" });

    const prefix = await send("pk_live_abc", minimal());
    expect(prefix.status).toBe(401);
    expect(prefix.body.error).toBe("Invalid API key prefix. Expected sk_proj_*, sk_live_* or sk_test_*.");
    expect(MSG_INVALID_KEY_PREFIX).toBe(prefix.body.error);
    expect(await messagesOf(p.projectId)).toBe(0);
  });

  it("405 with Allow for another method on a known path; 404 for an unknown one", async () => {
    const cases: [string, "get" | "put" | "patch" | "post", string][] = [
      ["/v1/send-email", "get", "POST"],
      ["/v1/send-template-email", "put", "POST"],
      ["/v1/send-batch", "get", "POST"],
      [`/v1/scheduled-sends/${randomUUID()}`, "post", "GET, HEAD, DELETE"],
    ];
    for (const [path, method, allow] of cases) {
      const res = await request(h.app)[method](path).set(bearer(p.liveKey));
      expect({ path, status: res.status, allow: res.headers.allow, body: res.body }).toEqual({
        path,
        status: 405,
        allow,
        body: { success: false, error: "Method not allowed" },
      });
    }
    expect((await request(h.app).get("/v1/nothing-here")).status).toBe(404);
  });
});

describe("validation (spec 4.1, 7)", () => {
  it.each([
    ["recipient_email", { recipient_email: undefined }],
    ["sender_email", { sender_email: undefined }],
    ["html_body", { html_body: undefined }],
    ["empty html_body", { html_body: "" }],
    ["empty recipient array", { recipient_email: [] }],
  ])("400 with the exact message when %s is missing", async (_name, patch) => {
    const res = await send(p.liveKey, { ...minimal(), ...patch });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: MSG_SEND_EMAIL_MISSING });
    expect(res.body.error).toBe("Missing required fields: recipient_email, sender_email, html_body");
  });

  it("an empty body is a missing-fields 400, a non-JSON or invalid JSON body a 400, never a 500", async () => {
    const empty = await request(h.app).post("/v1/send-email").set(bearer(p.liveKey)).send({});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe(MSG_SEND_EMAIL_MISSING);
    const text = await request(h.app)
      .post("/v1/send-email")
      .set(bearer(p.liveKey))
      .set("Content-Type", "text/plain")
      .send("hello");
    expect(text.status).toBe(400);
    expect(text.body.error).toBe("Content-Type must be application/json");
    const broken = await request(h.app)
      .post("/v1/send-email")
      .set(bearer(p.liveKey))
      .set("Content-Type", "application/json")
      .send('{"recipient_email":');
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ success: false, error: "Invalid JSON body" });
    const array = await request(h.app).post("/v1/send-email").set(bearer(p.liveKey)).send([minimal()]);
    expect(array.status).toBe(400);
    expect(array.body.error).toBe(MSG_SEND_EMAIL_MISSING);
  });

  const many = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}@example.org`);
  const invalid: [Record<string, unknown>, string][] = [
    [{ recipient_email: "not-an-address" }, "recipient_email is not a valid email address: not-an-address"],
    [{ recipient_email: ["a@example.org", "b@"] }, "recipient_email is not a valid email address: b@"],
    [{ recipient_email: 42 }, "recipient_email must be an email address or an array of email addresses"],
    [{ recipient_email: many(51, "u") }, "Too many addresses in recipient_email: 51. Maximum is 50."],
    [{ cc: many(11, "c") }, "Too many addresses in cc: 11. Maximum is 10."],
    [{ bcc: many(11, "b") }, "Too many addresses in bcc: 11. Maximum is 10."],
    [{ sender_email: "nope" }, "sender_email is not a valid email address: nope"],
    [{ data: ["x"] }, "data must be an object"],
    [{ dry_run: "yes" }, "dry_run must be a boolean"],
    [{ subject: 5 }, "subject must be a string"],
    [{ subject: "s".repeat(999) }, "subject must be at most 998 characters"],
    [{ sender_name: "n".repeat(201) }, "sender_name must be at most 200 characters"],
    [
      { recipient_email: "a\u0001b@example.org" },
      "recipient_email is not a valid email address: a\u0001b@example.org",
    ],
    // PostgreSQL text cannot hold NUL: refused for every field before anything is stored (it was a 500)
    [{ html_body: "a\u0000b" }, "Request body must not contain NUL characters (\\u0000)"],
    [{ data: { name: "x\u0000" } }, "Request body must not contain NUL characters (\\u0000)"],
    [{ data: { "k\u0000": "x" } }, "Request body must not contain NUL characters (\\u0000)"],
  ];
  it.each(invalid.map(([patch, message]) => [message, patch] as const))("400 %s", async (message, patch) => {
    const res = await send(p.liveKey, { ...minimal(), ...patch });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: message });
  });

  it("a {{name}} of Object.prototype renders empty; empty cc / bcc lists mean none", async () => {
    const res = await send(p.liveKey, {
      ...minimal(),
      html_body: "<p>[{{toString}}][{{constructor}}]</p>",
      cc: [],
      bcc: [],
      dry_run: true,
    });
    expect(res.status).toBe(200);
    const sent = await send(p.liveKey, { ...minimal(), cc: [], bcc: [] });
    expect(sent.status).toBe(200);
  });

  it("content that would render past 5,000,000 characters is a 400 naming the field; nothing stored", async () => {
    // 5 MB of placeholders (within html_body's cap) times a 1 kB value would be a 1 GB string.
    const res = await request(h.app)
      .post("/v1/send-email")
      .set(bearer(p.liveKey))
      .send({ ...minimal(), html_body: "{{a}}".repeat(1_000_000), data: { a: "x".repeat(1000) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: "html_body is longer than 5,000,000 characters once rendered",
    });
    expect(await messagesOf(p.projectId)).toBe(0);
  });

  it("a body nested deeper than 64 levels is a 400, with or without an Idempotency-Key (it was a 500)", async () => {
    // Raw text: the test client's own serializer would run out of stack on such an object.
    const deep = JSON.stringify({ ...minimal(), data: { a: "@" } }).replace(
      '"@"',
      "[".repeat(6000) + "]".repeat(6000),
    );
    for (const key of [null, "deep-1"]) {
      const req = request(h.app).post("/v1/send-email").set(bearer(p.liveKey)).type("json");
      const res = await (key ? req.set("Idempotency-Key", key) : req).send(deep);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: "Request body nests deeper than 64 levels" });
    }
  });

  it("a send's activities sort in recipient order, so the first recipient's copy is the one with cc/bcc", async () => {
    const recipients = ["e@example.org", "a@example.org", "d@example.org", "b@example.org", "c@example.org"];
    const res = await request(h.app)
      .post("/v1/send-email")
      .set(bearer(p.liveKey))
      .send({ ...minimal(), recipient_email: recipients, cc: ["cc@example.org"] });
    expect(res.status).toBe(200);
    const rows = await h.deps.db.pool.query<{ recipient: string }>(
      // the send-worker's isFirstActivity order
      "SELECT recipient FROM activities WHERE email_message_id = $1 ORDER BY created_at, id",
      [res.body.email_id],
    );
    expect(rows.rows.map((r) => r.recipient)).toEqual(recipients);
  });

  it("accepts exactly 50 recipients and 10 cc / 10 bcc", async () => {
    const res = await send(p.liveKey, {
      ...minimal(),
      recipient_email: Array.from({ length: 50 }, (_, i) => `u${i}@example.org`),
      cc: Array.from({ length: 10 }, (_, i) => `c${i}@example.org`),
      bcc: Array.from({ length: 10 }, (_, i) => `b${i}@example.org`),
    });
    expect(res.status).toBe(200);
    expect(await count(h.deps, "activities WHERE email_message_id = $1", [res.body.email_id])).toBe(50);
  });
});

describe("sender verification (spec 4.4 order, applied to v1)", () => {
  it("403 SENDER_NOT_VERIFIED for an unknown sender, nothing stored", async () => {
    const res = await send(p.liveKey, { ...minimal(), sender_email: "someone@unverified.example" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error:
        "Sender someone@unverified.example is not verified: verify the address or the domain unverified.example first",
      code: "SENDER_NOT_VERIFIED",
    });
    expect(await messagesOf(p.projectId)).toBe(0);
  });

  it("an inactive or unverified sender profile does not count; a verified domain identity does (IDN in ASCII form)", async () => {
    await h.deps.db.prisma.senderProfile.create({
      data: {
        projectId: p.projectId,
        senderEmail: "off@brand.example",
        senderName: "Off",
        emailVerified: true,
        active: false,
      },
    });
    expect((await send(p.liveKey, { ...minimal(), sender_email: "off@brand.example" })).status).toBe(403);

    const base = { projectId: p.projectId, verificationToken: "t", mailFromDomain: "mail.x", dkimTokens: [] };
    await h.deps.db.prisma.domainIdentity.create({
      data: {
        ...base,
        domain: "xn--bcher-kva.example",
        domainUnicode: "bücher.example",
        activeDomain: "xn--bcher-kva.example",
        status: "verified",
      },
    });
    await h.deps.db.prisma.domainIdentity.create({
      data: {
        ...base,
        domain: "pending.example",
        domainUnicode: "pending.example",
        activeDomain: "pending.example",
        status: "pending",
      },
    });
    await h.deps.db.prisma.domainIdentity.create({
      data: {
        ...base,
        domain: "gone.example",
        domainUnicode: "gone.example",
        activeDomain: null,
        status: "verified",
        deletedAt: new Date(),
      },
    });
    expect((await send(p.liveKey, { ...minimal(), sender_email: "news@Bücher.example" })).status).toBe(200);
    expect((await send(p.liveKey, { ...minimal(), sender_email: "news@pending.example" })).status).toBe(403);
    expect((await send(p.liveKey, { ...minimal(), sender_email: "news@gone.example" })).status).toBe(403);
  });

  it("one sender in either form of an internationalized domain, also for a profile stored in Unicode", async () => {
    // stored as domain-service now writes it (ASCII) and as it wrote it before (Unicode, lower-cased)
    for (const [stored, sentAs] of [
      ["z@xn--bcher-kva.example", "Z@bücher.example"],
      ["y@bücher.example", "y@bücher.example"],
    ] as const) {
      await h.deps.db.pool.query(
        "INSERT INTO sender_profiles (id, project_id, sender_name, sender_email, email_verified, active, updated_at) VALUES (gen_random_uuid(), $1, 'Z', $2, true, true, now())",
        [p.projectId, stored],
      );
      const res = await send(p.liveKey, { ...minimal(), sender_email: sentAs });
      expect(res.status).toBe(200);
    }
  });

  it("another project's verified sender is not this project's", async () => {
    const other = await makeProject(h.deps);
    const res = await send(p.liveKey, { ...minimal(), sender_email: other.sender });
    expect(res.status).toBe(403);
  });
});

describe("accepted sends", () => {
  it("one copy per person across recipient_email, cc and bcc (to before cc before bcc)", async () => {
    const res = await send(p.testKey, {
      ...minimal(),
      recipient_email: ["Dup@example.org", "dup2@example.org"],
      cc: ["dup@example.org", "cc@example.org", "CC@example.org"],
      bcc: ["DUP2@example.org", "bcc@example.org", "cc@example.org"],
    });
    expect(res.status).toBe(200);
    const msg = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({ where: { id: res.body.email_id } });
    expect({ cc: msg.cc, bcc: msg.bcc }).toEqual({ cc: ["cc@example.org"], bcc: ["bcc@example.org"] });
    const acts = await h.deps.db.prisma.activity.findMany({ where: { emailMessageId: msg.id } });
    // each person once, in the spelling written first (a local part's case is kept: RFC 5321 2.4)
    expect(acts.map((a) => a.recipient).sort()).toEqual(["Dup@example.org", "dup2@example.org"]);
  });

  it("200 { message, email_id, project_id }; rows, reply tokens, outbox row and the published command", async () => {
    const res = await send(p.liveKey, {
      recipient_email: ["Alice@Example.org", "bob@example.org", "alice@example.org"],
      sender_email: p.sender,
      sender_name: "Shop",
      subject: "Hello {{name}}",
      html_body: "<p>Hi {{name}}, order {{order.id}}</p>",
      text_body: "Hi {{name}}",
      cc: "carol@example.org",
      bcc: ["dave@example.org"],
      data: { name: "<Ann>", order: { id: 42 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: "Email queued for sending",
      email_id: expect.any(String),
      project_id: p.projectId,
    });

    const msg = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: res.body.email_id },
    });
    const msgActivities = await h.deps.db.prisma.activity.findMany({ where: { emailMessageId: msg.id } });
    expect(msg).toMatchObject({
      projectId: p.projectId,
      isTest: false,
      source: "api",
      fromEmail: p.sender,
      fromName: "Shop",
      subject: "Hello <Ann>",
      html: "<p>Hi &lt;Ann&gt;, order 42</p>",
      text: "Hi <Ann>",
      cc: ["carol@example.org"],
      bcc: ["dave@example.org"],
    });
    // Duplicates (case-insensitive) collapse into one activity per person.
    const activities = msgActivities.sort((a, b) => a.recipient.localeCompare(b.recipient));
    expect(activities.map((a) => a.recipient)).toEqual(["Alice@Example.org", "bob@example.org"]);
    for (const a of activities) {
      expect(a).toMatchObject({ status: "queued", isTest: false, projectId: p.projectId });
      expect(a.replyToken).toMatch(/^[a-z0-9]{8}$/);
      const token = await h.deps.db.prisma.replyToken.findUniqueOrThrow({ where: { token: a.replyToken! } });
      expect(token).toMatchObject({ projectId: p.projectId, activityId: a.id });
    }

    const ids = activities.map((a) => a.id).sort();
    const published = await observer.waitFor((e) => e.payload.activityIds.some((id) => ids.includes(id)));
    expect(published).toMatchObject({ type: "email.send-requested", projectId: p.projectId });
    expect([...published.payload.activityIds].sort()).toEqual(ids);
    // The relay deletes the row once the broker confirmed it: nothing of this send is left to publish.
    const left = await waitFor(async () => {
      const { rows } = await h.deps.db.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM outbox_messages WHERE payload->>'id' = $1",
        [published.id],
      );
      return rows[0]!.n === 0 ? rows[0]!.n : undefined;
    });
    expect(left).toBe(0);
  });

  it("live sends count in total_sent and project_usage; test-key sends do not, and are is_test", async () => {
    const live = await send(p.liveKey, { ...minimal(), recipient_email: ["a@example.org", "b@example.org"] });
    expect(live.status).toBe(200);
    const test = await send(p.testKey, {
      ...minimal(),
      recipient_email: ["c@example.org", "d@example.org", "e@example.org"],
    });
    expect(test.status).toBe(200);
    expect(test.body.project_id).toBe(p.projectId);

    const project = await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } });
    expect(project.totalSent).toBe(2n);
    const usage = await h.deps.db.prisma.projectUsage.findUniqueOrThrow({
      where: { projectId_period: { projectId: p.projectId, period: usagePeriod() } },
    });
    expect(usage.liveSent).toBe(2);
    const testActivities = await h.deps.db.prisma.activity.findMany({
      where: { emailMessageId: test.body.email_id },
    });
    expect(testActivities).toHaveLength(3);
    expect(testActivities.every((a) => a.isTest)).toBe(true);
    const testMessage = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: test.body.email_id },
    });
    expect(testMessage.isTest).toBe(true);
  });

  it("the legacy sk_proj_ live key behaves as live", async () => {
    const { createProject } = await import("@emailsvc/db");
    const legacy = await createProject(h.deps.db, { name: "legacy", legacyLiveKey: true }, "ab".repeat(32));
    expect(legacy.liveKey.startsWith("sk_proj_")).toBe(true);
    await h.deps.db.prisma.senderProfile.create({
      data: {
        projectId: legacy.project.id,
        senderEmail: "x@legacy.example",
        senderName: "L",
        emailVerified: true,
      },
    });
    const res = await send(legacy.liveKey, {
      recipient_email: "a@example.org",
      sender_email: "x@legacy.example",
      html_body: "x",
    });
    expect(res.status).toBe(200);
    const a = await h.deps.db.prisma.activity.findFirstOrThrow({
      where: { emailMessageId: res.body.email_id },
    });
    expect(a.isTest).toBe(false);
  });
});

describe("monthly quota (500,000 live emails)", () => {
  it("429 with the exact body past the quota; nothing stored; test keys still send", async () => {
    await h.deps.db.prisma.projectUsage.create({
      data: { projectId: p.projectId, period: usagePeriod(), liveSent: 499_999 },
    });

    const two = await send(p.liveKey, { ...minimal(), recipient_email: ["a@example.org", "b@example.org"] });
    expect(two.status).toBe(429);
    expect(two.body).toEqual({
      success: false,
      error: "Monthly email quota exceeded (500,000 emails per month)",
    });
    expect(await messagesOf(p.projectId)).toBe(0);

    const one = await send(p.liveKey, minimal());
    expect(one.status).toBe(200);
    const over = await send(p.liveKey, minimal());
    expect(over.status).toBe(429);
    expect(over.body.error).toBe("Monthly email quota exceeded (500,000 emails per month)");

    const usage = await h.deps.db.prisma.projectUsage.findUniqueOrThrow({
      where: { projectId_period: { projectId: p.projectId, period: usagePeriod() } },
    });
    expect(usage.liveSent).toBe(500_000);
    expect(await messagesOf(p.projectId)).toBe(1);
    expect(await count(h.deps, "activities WHERE project_id = $1", [p.projectId])).toBe(1);
    expect((await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } })).totalSent).toBe(
      1n,
    );

    const test = await send(p.testKey, minimal());
    expect(test.status).toBe(200);
  });
});

describe("dry_run", () => {
  it("answers exactly the 4.1 shape, with rendering, and stores / queues nothing", async () => {
    const res = await send(p.testKey, {
      recipient_email: ["a@example.org", "b@example.org"],
      sender_email: p.sender,
      sender_name: "Shop",
      subject: "Hi {{name}}",
      html_body: "<p>{{name}} / {{missing}}</p>",
      data: { name: "Ann" },
      dry_run: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dry_run: true,
      test_mode: true,
      would_send: {
        to: ["a@example.org", "b@example.org"],
        from: `Shop <${p.sender}>`,
        subject: "Hi Ann",
        html_preview: "<p>Ann / </p>",
        variables_used: ["name", "missing"],
      },
    });
    const live = await send(p.liveKey, { ...minimal(), dry_run: true });
    expect(live.body.test_mode).toBe(false);
    expect(live.body.would_send.from).toBe(p.sender);
    expect(await messagesOf(p.projectId)).toBe(0);
    expect(await count(h.deps, "activities WHERE project_id = $1", [p.projectId])).toBe(0);
    expect(await count(h.deps, "outbox_messages WHERE payload->>'projectId' = $1", [p.projectId])).toBe(0);
    expect(await count(h.deps, "project_usage WHERE project_id = $1", [p.projectId])).toBe(0);
  });

  it("still validates: missing fields and an unverified sender are refused", async () => {
    expect((await send(p.liveKey, { ...minimal(), html_body: undefined, dry_run: true })).status).toBe(400);
    // an attachment URL the real send would refuse before any download
    for (const [url, error] of [
      ["not a url", "attachments[0]: Attachment URL is not a valid URL"],
      ["file:///etc/passwd", "attachments[0]: Attachment URL must use http or https"],
      ["http://user:pw@example.com/a.pdf", "attachments[0]: Attachment URL must not contain credentials"],
      ["http://10.0.0.1/a.pdf", "attachments[0]: Attachment URL points to a private or reserved address"],
    ]) {
      const res = await send(p.liveKey, {
        ...minimal(),
        attachments: [{ filename: "a.pdf", url }],
        dry_run: true,
      });
      expect({ url, status: res.status, body: res.body }).toEqual({
        url,
        status: 400,
        body: { success: false, error },
      });
    }
    expect(
      (await send(p.liveKey, { ...minimal(), sender_email: "x@nowhere.example", dry_run: true })).status,
    ).toBe(403);
  });
});

describe("suppression", () => {
  it("matches addresses case-insensitively: a suppression stored for Bob@x.org skips bob@X.org in to, cc and bcc", async () => {
    // stored as every writer stores a suppression (notification-ingest, unsubscribe): lower-cased
    await suppress(h.deps, p.projectId, "Bob@x.org", "complaint");
    const alone = await send(p.liveKey, { ...minimal(), recipient_email: "bob@X.org" });
    expect(alone.body).toEqual({
      message: expect.any(String),
      skipped: true,
      suppression_reason: "complaint",
      recipient: "bob@X.org",
    });
    const copied = await send(p.liveKey, {
      ...minimal(),
      recipient_email: "Carol.Case@x.org",
      cc: ["BOB@x.org"],
      bcc: ["bOb@X.ORG", "Dan@x.org"],
    });
    expect(copied.status).toBe(200);
    const msg = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: copied.body.email_id },
    });
    expect({ cc: msg.cc, bcc: msg.bcc }).toEqual({ cc: [], bcc: ["Dan@x.org"] });
    const acts = await h.deps.db.prisma.activity.findMany({ where: { emailMessageId: msg.id } });
    // the one recipient left keeps the case of its local part
    expect(acts.map((a) => a.recipient)).toEqual(["Carol.Case@x.org"]);
  });

  it("a suppressed single recipient: 200 skipped body, nothing stored", async () => {
    await suppress(h.deps, p.projectId, "gone@example.org", "bounce");
    const res = await send(p.liveKey, { ...minimal(), recipient_email: "Gone@example.org" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: expect.any(String),
      skipped: true,
      suppression_reason: "bounce",
      recipient: "Gone@example.org",
    });
    expect(await messagesOf(p.projectId)).toBe(0);
  });

  it("arrays: the others are sent; all suppressed → skipped body of the first", async () => {
    await suppress(h.deps, p.projectId, "unsub@example.org", "unsubscribed");
    await suppress(h.deps, p.projectId, "bounced@example.org", "bounce");
    const some = await send(p.liveKey, {
      ...minimal(),
      recipient_email: ["unsub@example.org", "ok@example.org"],
      cc: ["bounced@example.org", "cc@example.org"],
    });
    expect(some.status).toBe(200);
    expect(some.body).toEqual({
      message: "Email queued for sending (1 suppressed recipient skipped)",
      email_id: expect.any(String),
      project_id: p.projectId,
    });
    const msg = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: some.body.email_id },
    });
    const msgActivities = await h.deps.db.prisma.activity.findMany({ where: { emailMessageId: msg.id } });
    expect(msgActivities.map((a) => a.recipient)).toEqual(["ok@example.org"]);
    expect(msg.cc).toEqual(["cc@example.org"]);

    const all = await send(p.liveKey, {
      ...minimal(),
      recipient_email: ["bounced@example.org", "unsub@example.org"],
    });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      skipped: true,
      suppression_reason: "bounce",
      recipient: "bounced@example.org",
    });
    expect(await messagesOf(p.projectId)).toBe(1);
  });

  it("suppression is per project", async () => {
    const other = await makeProject(h.deps);
    await suppress(h.deps, other.projectId, "alice@example.org", "bounce");
    const res = await send(p.liveKey, minimal());
    expect(res.body.email_id).toBeDefined();
  });
});

describe("the checks inside the accept statement", () => {
  /** Statements the pool ran while `fn` did, that check the sender or write the email (not the outbox relay's). */
  async function sendStatements(fn: () => Promise<unknown>): Promise<number> {
    const pool = h.deps.db.pool;
    const original = pool.query.bind(pool);
    let n = 0;
    const spy = jest.spyOn(pool, "query").mockImplementation(((...args: Parameters<typeof pool.query>) => {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
      if (text && /sender_profiles|INSERT INTO email_messages/.test(text)) n++;
      return original(...args);
    }) as typeof pool.query);
    try {
      await fn();
    } finally {
      spy.mockRestore();
    }
    return n;
  }

  it("a verified sender and no suppressed recipient: one statement checks and writes the send", async () => {
    let status = 0;
    expect(await sendStatements(async () => ({ status } = await send(p.liveKey, minimal())))).toBe(1);
    expect(status).toBe(200);
    expect(await messagesOf(p.projectId)).toBe(1);
  });

  it("a refusal inside the statement writes and counts nothing, then the checks alone answer", async () => {
    const before = await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } });
    const unverified = await send(p.liveKey, { ...minimal(), sender_email: "x@unverified.example" });
    expect(unverified.status).toBe(403);
    await suppress(h.deps, p.projectId, "gone@example.org", "complaint");
    const suppressed = await request(h.app)
      .post("/v1/send-email")
      .set(bearer(p.liveKey))
      .set("Idempotency-Key", "refused-once")
      .send({ ...minimal(), recipient_email: "gone@example.org" });
    expect(suppressed.body).toMatchObject({ skipped: true, suppression_reason: "complaint" });

    expect(await messagesOf(p.projectId)).toBe(0);
    expect(await count(h.deps, "activities WHERE project_id = $1", [p.projectId])).toBe(0);
    expect(await count(h.deps, "reply_tokens WHERE project_id = $1", [p.projectId])).toBe(0);
    expect(await count(h.deps, "idempotency_keys WHERE project_id = $1", [p.projectId])).toBe(0);
    expect(await count(h.deps, "project_usage WHERE project_id = $1", [p.projectId])).toBe(0);
    const after = await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } });
    expect(after.totalSent).toBe(before.totalSent);
  });
});
