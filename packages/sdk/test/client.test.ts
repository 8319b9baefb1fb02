// The client against a local fake server (real sockets): auth, bodies, paths, retries with Retry-After and
// backoff, the generated Idempotency-Key kept across retries, and the typed errors.
import {
  ConflictError,
  ConnectionError,
  EmailService,
  EmailServiceError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  SenderNotVerifiedError,
  UnauthorizedError,
  ValidationError,
  type EmailServiceOptions,
  type RetryInfo,
} from "../src/index.js";
import { backoffMs } from "../src/transport.js";
import { accepted, startFakeServer, type FakeServer } from "./fake-server.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const message = {
  recipient_email: "ada@example.com",
  sender_email: "hi@shop.example",
  html_body: "<p>Hi</p>",
};

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

const client = (o: Partial<EmailServiceOptions> = {}) =>
  new EmailService({ apiKey: "sk_test_abc", baseUrl: server.url, initialDelayMs: 5, maxDelayMs: 20, ...o });

async function caught(p: Promise<unknown>): Promise<EmailServiceError> {
  try {
    await p;
  } catch (e) {
    return e as EmailServiceError;
  }
  throw new Error("expected the call to throw");
}

describe("requests", () => {
  it("sends the key as a Bearer token and the body as JSON, and returns the answer", async () => {
    server.script({ status: 200, body: accepted });
    const answer = await client().emails.send(message);
    expect(answer).toEqual(accepted);
    const [r] = server.received;
    expect(r!.method).toBe("POST");
    expect(r!.url).toBe("/v1/send-email");
    expect(r!.headers.authorization).toBe("Bearer sk_test_abc");
    expect(r!.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(r!.body)).toEqual(message);
  });

  it("puts path parameters URL-encoded into the path and queries into the query string", async () => {
    server.script({ status: 200, body: { success: true, email: "a+b@x.com", tags: ["vip"] } });
    const c = client();
    await c.leads.tags.add("a+b@x.com", ["vip"]);
    await c.events.list({ email: "a@x.com", per_page: 10 });
    await c.domains.verify("shop.example");
    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /v1/leads/a%2Bb%40x.com/tags",
      "GET /v1/events?email=a%40x.com&per_page=10",
      "POST /domains/shop.example/verify",
    ]);
    expect(JSON.parse(server.received[0]!.body)).toEqual({ tags: ["vip"] });
  });

  it("gives each send its own generated Idempotency-Key, and uses a given one as is", async () => {
    server.script({ status: 200, body: accepted });
    const c = client();
    await c.emails.send(message);
    await c.emails.sendBatch({
      sender: "hi@shop.example",
      subject: "S",
      html: "H",
      recipients: [{ email: "a@x.com" }],
    });
    await c.events.track({ email: "a@x.com", event: "signed_up" });
    await c.emails.send(message, { idempotencyKey: "order-42" });
    const keys = server.received.map((r) => r.headers["idempotency-key"]);
    expect(keys.slice(0, 3)).toEqual([
      expect.stringMatching(UUID),
      expect.stringMatching(UUID),
      expect.stringMatching(UUID),
    ]);
    expect(new Set(keys.slice(0, 3)).size).toBe(3);
    expect(keys[3]).toBe("order-42");
  });

  it("sends no Idempotency-Key where the endpoint takes none", async () => {
    server.script({ status: 200, body: { success: true, lead: {} } });
    await client().leads.upsert({ email: "a@x.com" });
    expect(server.received[0]!.headers["idempotency-key"]).toBeUndefined();
  });
});

describe("retries", () => {
  it("retries a dropped connection with the same Idempotency-Key, so the service sees one send twice", async () => {
    server.script({ drop: true }, { status: 200, body: accepted });
    const retries: RetryInfo[] = [];
    const answer = await client({ onRetry: (i) => retries.push(i) }).emails.send(message);
    expect(answer).toEqual(accepted);
    expect(server.received).toHaveLength(2);
    const [first, second] = server.received;
    expect(first!.headers["idempotency-key"]).toMatch(UUID);
    expect(second!.headers["idempotency-key"]).toBe(first!.headers["idempotency-key"]);
    expect(second!.body).toBe(first!.body);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, error: expect.anything() })]);
  });

  it("retries 5xx up to maxRetries, then returns the error", async () => {
    server.script({ status: 503, body: { success: false, error: "down" } });
    const e = await caught(client({ maxRetries: 3 }).events.track({ email: "a@x.com", event: "e" }));
    expect(server.received).toHaveLength(4);
    expect(e).toBeInstanceOf(EmailServiceError);
    expect(e).toMatchObject({ status: 503, code: "UNAVAILABLE", body: { success: false, error: "down" } });
    expect(new Set(server.received.map((r) => r.headers["idempotency-key"])).size).toBe(1);
  });

  it("recovers when a 5xx is followed by a success", async () => {
    server.script({ status: 500, body: { success: false, error: "x" } }, { status: 200, body: accepted });
    await expect(client().emails.send(message)).resolves.toEqual(accepted);
    expect(server.received).toHaveLength(2);
  });

  it("does not retry with maxRetries: 0", async () => {
    server.script({ status: 503, body: { success: false, error: "down" } });
    await caught(client({ maxRetries: 0 }).emails.send(message));
    expect(server.received).toHaveLength(1);
    server.received.length = 0;
    server.script({ drop: true }, { status: 200, body: accepted });
    expect(await caught(client({ maxRetries: 0 }).emails.send(message))).toBeInstanceOf(ConnectionError);
    expect(server.received).toHaveLength(1);
  });

  it("waits out Retry-After on a 429 before the retry", async () => {
    server.script(
      { status: 429, headers: { "Retry-After": "1" }, body: { success: false, error: "Too many requests" } },
      { status: 201, body: { success: true, event_id: "e", recipient_id: "r", created_lead: false } },
    );
    const retries: RetryInfo[] = [];
    await client({ onRetry: (i) => retries.push(i) }).events.track({ email: "a@x.com", event: "e" });
    expect(server.received).toHaveLength(2);
    expect(server.received[1]!.at - server.received[0]!.at).toBeGreaterThanOrEqual(950);
    expect(retries[0]).toMatchObject({ status: 429, delayMs: 1000 });
  });

  it("does not wait out a Retry-After longer than maxRetryAfterMs: RateLimitedError with retryAfter", async () => {
    server.script({
      status: 429,
      headers: { "Retry-After": "120" },
      body: { success: false, error: "slow down" },
    });
    const e = await caught(client().events.list());
    expect(server.received).toHaveLength(1);
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).retryAfter).toBe(120);
    expect(e.code).toBe("RATE_LIMITED");
  });

  it("never retries the monthly quota's 429", async () => {
    server.script({
      status: 429,
      body: { success: false, error: "Monthly email quota exceeded (500,000 emails per month)" },
    });
    const e = await caught(client().emails.send(message));
    expect(server.received).toHaveLength(1);
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: "QUOTA_EXCEEDED", retryAfter: null });
  });

  it("retries the 409 of a key still in flight with the same key, but no other 409", async () => {
    server.script(
      {
        status: 409,
        body: { success: false, error: "A request with this Idempotency-Key is still being processed" },
      },
      { status: 200, body: accepted },
    );
    await expect(client().emails.send(message)).resolves.toEqual(accepted);
    expect(server.received).toHaveLength(2);
    expect(server.received[1]!.headers["idempotency-key"]).toBe(
      server.received[0]!.headers["idempotency-key"],
    );

    server.received.length = 0;
    server.script({ status: 409, body: { success: false, error: "Domain already registered" } });
    const e = await caught(
      client().domains.register({
        domain: "shop.example",
        sender_name: "S",
        sender_email: "hi@shop.example",
      }),
    );
    expect(e).toBeInstanceOf(ConflictError);
    expect(server.received).toHaveLength(1);
  });

  it("gives up after the last attempt with a ConnectionError carrying the cause", async () => {
    server.script({ drop: true });
    const e = await caught(client({ maxRetries: 2 }).emails.send(message));
    expect(server.received).toHaveLength(3);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ status: 0, code: "CONNECTION" });
    expect(e.cause).toBeDefined();
  });

  it("times out an attempt that gets no answer and retries it", async () => {
    server.script({ hang: true }, { status: 200, body: accepted });
    await expect(client({ timeoutMs: 200 }).emails.send(message)).resolves.toEqual(accepted);
    expect(server.received).toHaveLength(2);
  });

  it("backs off exponentially with jitter, capped", () => {
    const o = { initialDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffMs(0, o, () => 0)).toBe(50);
    expect(backoffMs(0, o, () => 1)).toBe(100);
    expect(backoffMs(2, o, () => 0)).toBe(200);
    expect(backoffMs(2, o, () => 1)).toBe(400);
    expect(backoffMs(10, o, () => 1)).toBe(1000);
  });
});

describe("errors", () => {
  it("maps 401 to UnauthorizedError and does not retry it", async () => {
    server.script({
      status: 401,
      body: { success: false, error: "Unauthorized: Invalid or missing API key" },
    });
    const e = await caught(client().emails.send(message));
    expect(e).toBeInstanceOf(UnauthorizedError);
    expect(e).toMatchObject({
      status: 401,
      code: "UNAUTHORIZED",
      message: "Unauthorized: Invalid or missing API key",
    });
    expect(server.received).toHaveLength(1);
  });

  it.each([
    ["recipients[3].email is required", ["recipients[3].email"]],
    [
      "Missing required fields: recipient_email, sender_email, html_body",
      ["recipient_email", "sender_email", "html_body"],
    ],
    [
      "Missing required fields: recipient_email, sender_email, html_body (or template_id)",
      ["recipient_email", "sender_email", "html_body"],
    ],
    ["cc: Too many addresses (at most 10)", ["cc"]],
    ["attachments[0].filename: Required", ["attachments[0].filename"]],
    ["subject or templateId is required", ["subject", "templateId"]],
    ["sender_email and sender_name are required", ["sender_email", "sender_name"]],
    ["recipients array is required and must not be empty", ["recipients"]],
    ["Something is off", []],
  ])("maps 400 %j to a ValidationError naming %j", async (error, fields) => {
    server.script({ status: 400, body: { success: false, error } });
    const e = await caught(client().emails.send(message));
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).fields).toEqual(fields);
    expect((e as ValidationError).field).toBe(fields[0]);
    expect(e).toMatchObject({ status: 400, code: "VALIDATION", message: error });
  });

  it("maps the 403 of an unverified sender to SenderNotVerifiedError", async () => {
    const body = { success: false, error: "Sender x@y.z is not verified", code: "SENDER_NOT_VERIFIED" };
    server.script({ status: 403, body });
    const e = await caught(client().emails.send(message));
    expect(e).toBeInstanceOf(SenderNotVerifiedError);
    expect(e).toMatchObject({ status: 403, code: "SENDER_NOT_VERIFIED", body });
  });

  it("maps 404 to NotFoundError, and an unlisted status to the base error with the body", async () => {
    server.script({ status: 404, body: { success: false, error: "Not found" } });
    expect(await caught(client().scheduledSends.get("x"))).toBeInstanceOf(NotFoundError);
    server.script({ status: 413, body: { success: false, error: "too large" } });
    const e = await caught(client().emails.send(message));
    expect(e.constructor).toBe(EmailServiceError);
    expect(e).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE", body: { error: "too large" } });
    expect(e.headers?.get("content-type")).toMatch(/json/);
  });
});
