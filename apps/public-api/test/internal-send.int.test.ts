// Internal POST /send-email (spec 4.4, 4.11, 7). Real: PostgreSQL, RabbitMQ (RPC over direct reply-to), Redis,
// s3rver. Faked: the send-worker — a tiny responder on its RPC queue answers as the worker would.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { Queues, type EmailSendRpcReply } from "@emailsvc/contracts";
import { BrokerUnavailableError, createBroker, type Broker, type ConsumerHandle } from "@emailsvc/messaging";
import {
  makeProject,
  PDF_BYTES,
  startHarness,
  startS3,
  testEnv,
  type Harness,
  type TestProject,
} from "./helpers";

let h: Harness;
let s3: Awaited<ReturnType<typeof startS3>>;
let worker: Broker;
let serving: ConsumerHandle;
let p: TestProject;

/** What the fake worker answers for each activity; `silent` never answers (the caller times out). */
let behaviour: "sent" | "provider" | "transient" | "timeout" | "permanent" | "silent" | "throw" = "sent";
const requests: { activityId: string; projectId: string | null }[] = [];

beforeAll(async () => {
  s3 = await startS3();
  h = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint, SEND_RPC_TIMEOUT_MS: "800" }));
  worker = createBroker({ url: process.env.RABBITMQ_URL!, name: "fake-send-worker" });
  await worker.ready();
  serving = await worker.serveRpc<{ activityId: string }, EmailSendRpcReply>(
    Queues.sendWorkerRpc,
    async (env) => {
      const { activityId } = env.payload;
      requests.push({ activityId, projectId: env.projectId });
      switch (behaviour) {
        case "sent":
          await h.deps.db.pool.query(
            "UPDATE activities SET status = 'sent', provider_message_id = $2 WHERE id = $1",
            [activityId, `pm-${activityId}`],
          );
          return { activityId, status: "sent", providerMessageId: `pm-${activityId}` };
        case "silent":
          await new Promise((r) => setTimeout(r, 1500));
          return { activityId, status: "sent", providerMessageId: "too-late" };
        case "throw":
          throw new Error("worker crashed");
        default:
          // As the real worker does: every failure it answers is recorded as failed.
          await h.deps.db.pool.query("UPDATE activities SET status = 'failed' WHERE id = $1", [activityId]);
          return {
            activityId,
            status: "failed",
            error: `provider said no (${behaviour})`,
            errorKind: behaviour,
          };
      }
    },
  );
});
afterAll(async () => {
  await serving?.close();
  await worker?.close();
  await h?.close();
  await s3?.close();
});
beforeEach(async () => {
  behaviour = "sent";
  requests.length = 0;
  p = await makeProject(h.deps);
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  request(h.internal)
    .post("/send-email")
    .set(headers)
    .send(body as object);
const minimal = () => ({
  recipient: "ann@example.org",
  sender: p.sender,
  subject: "Hello {{name}}",
  html: "<p>Hi {{name}}</p>",
  data: { name: "Ann" },
});
const withProject = () => ({ "x-project-id": p.projectId });

describe("request errors (spec 7)", () => {
  it("415 for a body that is not JSON", async () => {
    const res = await request(h.internal).post("/send-email").set("Content-Type", "text/plain").send("hello");
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ success: false, error: "Content-Type must be application/json" });
  });

  it("a JSON request without a body is a missing-field 400, not a 415", async () => {
    const res = await request(h.internal)
      .post("/send-email")
      .set("Content-Type", "application/json; charset=utf-8");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: "Missing required field: recipient" });
  });

  it("400 for a NUL character, an over-long subject, an empty templateId and a {{toString}} rendered empty", async () => {
    const nul = await post({ ...minimal(), html: "a\u0000b" }, withProject());
    expect(nul.body).toEqual({
      success: false,
      error: "Request body must not contain NUL characters (\\u0000)",
    });
    expect((await post({ ...minimal(), subject: "s".repeat(999) })).body.error).toBe(
      "subject must be at most 998 characters",
    );
    expect((await post({ ...minimal(), templateId: "" }, withProject())).body.error).toBe(
      "templateId must not be empty",
    );
    expect(requests).toEqual([]);
    const proto = await post({ ...minimal(), html: "<p>{{toString}}</p>" }, withProject());
    expect(proto.status).toBe(200);
  });

  it.each(["recipient", "sender", "subject", "html"])("400 Missing required field: %s", async (field) => {
    const res = await post({ ...minimal(), [field]: undefined }, withProject());
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: `Missing required field: ${field}` });
  });

  it("400 for bad addresses and a malformed x-project-id; 404 for an unknown project", async () => {
    expect((await post({ ...minimal(), recipient: "nope" })).body.error).toBe(
      "recipient is not a valid email address: nope",
    );
    const badId = await post(minimal(), { "x-project-id": "p-1" });
    expect(badId.status).toBe(400);
    expect(badId.body.error).toBe("x-project-id must be a project UUID");
    const unknown = await post(minimal(), { "x-project-id": randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, error: "Project not found" });
    expect(requests).toEqual([]);
  });

  it("403 SENDER_NOT_VERIFIED with x-project-id: neither a verified sender profile nor a verified domain", async () => {
    const res = await post({ ...minimal(), sender: "ops@shop.example" }, withProject());
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: "Sender ops@shop.example is not verified: verify the address or the domain shop.example first",
      code: "SENDER_NOT_VERIFIED",
    });
    // (2) a verified domain identity is enough.
    await h.deps.db.prisma.domainIdentity.create({
      data: {
        projectId: p.projectId,
        domain: "shop.example",
        domainUnicode: "shop.example",
        activeDomain: "shop.example",
        status: "verified",
        verificationToken: "t",
        mailFromDomain: "m",
        dkimTokens: [],
      },
    });
    expect((await post({ ...minimal(), sender: "ops@shop.example" }, withProject())).status).toBe(200);
  });

  it("404 for an unknown templateId; 400 for templateId without a project", async () => {
    const res = await post({ ...minimal(), html: undefined, templateId: randomUUID() }, withProject());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: "Template not found" });
    const noProject = await post({ ...minimal(), html: undefined, templateId: randomUUID() });
    expect(noProject.status).toBe(400);
  });

  it("413 for an attachment over 10 MB; 400 for a disallowed type", async () => {
    const big = await post(
      {
        ...minimal(),
        attachments: [{ filename: "a.pdf", content: Buffer.alloc(10 * 1024 * 1024 + 1).toString("base64") }],
      },
      withProject(),
    );
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ success: false, error: "attachments[0]: attachment exceeds the 10 MB limit" });
    const type = await post(
      {
        ...minimal(),
        attachments: [{ filename: "a.exe", content: "AAAA", contentType: "application/octet-stream" }],
      },
      withProject(),
    );
    expect(type.status).toBe(400);
  });
});

describe("sending through the send-worker RPC", () => {
  it("200 with messageId (provider id), activityId, message; rendered rows; token Reply-To for a project send", async () => {
    const res = await post(minimal(), withProject());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      messageId: expect.stringMatching(/^pm-/),
      activityId: expect.any(String),
      message: "Email sent successfully",
    });
    expect(res.body).not.toHaveProperty("attachments_sent");
    expect(requests).toEqual([{ activityId: res.body.activityId, projectId: p.projectId }]);
    expect(res.body.messageId).toBe(`pm-${res.body.activityId}`);

    const a = await h.deps.db.prisma.activity.findUniqueOrThrow({
      where: { id: res.body.activityId },
    });
    const message = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: a.emailMessageId },
    });
    expect(a).toMatchObject({
      projectId: p.projectId,
      isTest: false,
      status: "sent",
      emailType: "transactional",
    });
    expect(message).toMatchObject({ subject: "Hello Ann", html: "<p>Hi Ann</p>", source: "internal" });
    expect(a.replyToken).toMatch(/^[a-z0-9]{8}$/);
    expect(
      await h.deps.db.prisma.replyToken.count({
        where: { token: a.replyToken!, projectId: p.projectId, activityId: a.id },
      }),
    ).toBe(1);
    // Synchronous sends are not also queued for the async worker.
    expect(
      await h.deps.db.pool
        .query("SELECT 1 FROM outbox_messages WHERE payload::text LIKE $1", [`%${a.id}%`])
        .then((r) => r.rowCount),
    ).toBe(0);
    expect((await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } })).totalSent).toBe(
      1n,
    );
  });

  it("several recipients: one activity and one RPC each, in parallel; messageId and activityId of the first", async () => {
    const res = await post(
      { ...minimal(), recipient: ["ann@example.org", "bob@example.org"], cc: "carol@example.org" },
      withProject(),
    );
    expect(res.status).toBe(200);
    expect(requests).toHaveLength(2);
    const activities = await h.deps.db.prisma.activity.findMany({
      where: { id: { in: requests.map((r) => r.activityId) } },
    });
    const ann = activities.find((a) => a.recipient === "ann@example.org")!;
    expect(activities.map((a) => a.status)).toEqual(["sent", "sent"]);
    expect(res.body.activityId).toBe(ann.id);
    expect(res.body.messageId).toBe(`pm-${ann.id}`);
  });

  it("attachments_sent appears only when attachments were sent", async () => {
    const res = await post(
      {
        ...minimal(),
        attachments: [
          { filename: "a.pdf", content: PDF_BYTES.toString("base64") },
          { filename: "b.ics", content: "QkVHSU46VkNBTEVOREFS" },
        ],
      },
      withProject(),
    );
    expect(res.status).toBe(200);
    expect(res.body.attachments_sent).toBe(2);
  });

  it("x-source: platform gets no reply token; without x-project-id activityId is null and nothing is tied to a project", async () => {
    const platform = await post(minimal(), { ...withProject(), "x-source": "platform" });
    expect(platform.status).toBe(200);
    const a = await h.deps.db.prisma.activity.findUniqueOrThrow({
      where: { id: platform.body.activityId },
    });
    const message = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: a.emailMessageId },
    });
    expect(a.replyToken).toBeNull();
    expect(message.source).toBe("platform");

    const anonymous = await post({ ...minimal(), sender: "noreply@anything.example" });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toMatchObject({
      success: true,
      activityId: null,
      messageId: expect.stringMatching(/^pm-/),
    });
    const sent = await h.deps.db.prisma.activity.findUniqueOrThrow({
      where: { id: requests.at(-1)!.activityId },
    });
    expect(sent).toMatchObject({ projectId: null, replyToken: null, status: "sent" });
    expect(requests.at(-1)!.projectId).toBeNull();
  });

  it("a stored template by templateId, with {{variable}} data", async () => {
    const t = await h.deps.db.prisma.template.create({
      data: {
        projectId: p.projectId,
        internalId: 1,
        name: "t",
        subject: "ignored",
        html: "<p>Dear {{name}}</p>",
      },
    });
    const res = await post(
      {
        ...minimal(),
        html: undefined,
        templateId: t.id,
        email_type: "automation",
        custom_headers: { "List-Unsubscribe": "<mailto:u@x.example>" },
      },
      withProject(),
    );
    expect(res.status).toBe(200);
    const a = await h.deps.db.prisma.activity.findUniqueOrThrow({
      where: { id: res.body.activityId },
    });
    const message = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: a.emailMessageId },
    });
    expect(message).toMatchObject({
      html: "<p>Dear Ann</p>",
      subject: "Hello Ann",
      emailType: "automation",
      headers: { "List-Unsubscribe": "<mailto:u@x.example>" },
    });
  });

  it.each([
    ["provider", 502, "Failed to send email: provider said no (provider)"],
    ["permanent", 502, "Failed to send email: provider said no (permanent)"],
    ["throw", 502, "Failed to send email: the send-worker could not process the email"],
    ["timeout", 504, "Timed out waiting for the email provider"],
  ] as const)("worker answer %s → %i", async (kind, status, error) => {
    behaviour = kind;
    const res = await post(minimal(), withProject());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ success: false, error });
  });

  const counters = async () =>
    (
      await h.deps.db.pool.query<{ total: number; live: number }>(
        `SELECT p.total_sent::int AS total, COALESCE((SELECT sum(live_sent)::int FROM project_usage u
            WHERE u.project_id = p.id), 0) AS live FROM projects p WHERE p.id = $1`,
        [p.projectId],
      )
    ).rows[0]!;

  it.each([
    ["provider", 0],
    ["permanent", 0],
    // The worker failed before claiming it: still queued, cancelled, never sent.
    ["throw", 0],
    // The outcome of a provider timeout, or of an error without a usable answer, is unknown: the email may
    // have gone out, so it still counts.
    ["timeout", 1],
    ["transient", 1],
    ["sent", 1],
  ] as const)(
    "worker answer %s: the quota and total_sent keep %i (what the provider refused is given back)",
    async (kind, kept) => {
      behaviour = kind;
      await post(minimal(), withProject());
      expect(await counters()).toEqual({ total: kept, live: kept });
    },
  );

  it("500 at once when the broker is unreachable: nothing sent, nothing counted", async () => {
    const rpcCall = h.deps.broker.rpcCall;
    h.deps.broker.rpcCall = () =>
      Promise.reject(new BrokerUnavailableError("the message broker is unreachable"));
    try {
      const res = await post(minimal(), withProject());
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        success: false,
        error: "Email not sent: the message broker is unavailable; try again",
      });
      expect(requests).toHaveLength(0);
      const a = await h.deps.db.pool.query("SELECT status FROM activities WHERE project_id = $1", [
        p.projectId,
      ]);
      expect(a.rows).toEqual([{ status: "cancelled" }]);
      expect(await counters()).toEqual({ total: 0, live: 0 });
    } finally {
      h.deps.broker.rpcCall = rpcCall;
    }
  });

  it("504 when the worker does not answer in time; the still-queued activity is cancelled so it is never sent late", async () => {
    behaviour = "silent";
    const started = Date.now();
    const res = await post(minimal(), withProject());
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ success: false, error: "Timed out waiting for the email provider" });
    expect(Date.now() - started).toBeLessThan(1500);
    const a = await h.deps.db.prisma.activity.findUniqueOrThrow({ where: { id: requests[0]!.activityId } });
    expect(a.status).toBe("cancelled");
    await new Promise((r) => setTimeout(r, 1000)); // let the slow handler finish before the next test
  });
});
