// Bad input on every route notification-ingest serves, derived from the public OpenAPI document (@emailsvc/testing's
// fuzz cases): the SNS receiver (each envelope field bad in turn, odd bodies and content types, odd but authentic
// envelopes: wrong Type, bad SigningCertURL, huge or unreadable Message) and the tracking and unsubscribe links
// (path ids, `url` and `sig` values are client input). Every answer must be below 500 and say what was wrong, in the
// form the route answers in: JSON `error` (webhook, click refusals, 404s), the pixel for any id, a redirect only to
// the URL we signed, an HTML page with its reason for an unsubscribe link. What the receiver queued, the real
// consumer takes: each notification applied, or parked as unreadable (never retried for an error of ours).
import { randomUUID } from "node:crypto";
import http from "node:http";
import encodeUrl from "encodeurl";
import request from "supertest";
import { messagingTopology, publicOpenApi, type Envelope } from "@emailsvc/contracts";
import { signTrackedUrl, signUnsubscribe } from "@emailsvc/content";
import { createDb, recordTrackingHits, type TrackingHit } from "@emailsvc/db";
import { listExpressRoutes } from "@emailsvc/http";
import { createBroker, PermanentError, type ConsumerHandle, type MessageContext } from "@emailsvc/messaging";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { createSnsVerifier, readSnsTestFixtures, signSnsMessage, type SnsMessage } from "@emailsvc/provider";
import {
  BAD_PATH_SEGMENTS,
  BAD_QUERY_VALUES,
  bodyCases,
  RAW_BODIES,
  sample,
  type BodyCase,
  operationsOf,
  type FuzzOp,
  caseContentType,
  caseText,
  judgeCase,
  type FuzzFailure,
} from "@emailsvc/testing";
import { createApp } from "../src/app";
import { notificationConsumer } from "../src/notifications/notification.consumer";
import type { Deps } from "../src/deps";
import { createGroupWriter } from "../src/infra/group-writer";
import { PROVIDER_WEBHOOK_ROUTES } from "../src/notifications/provider-webhook.routes";
import { TRACKING_ROUTES } from "../src/tracking/tracking.routes";

jest.setTimeout(120_000);

const SECRET = "s".repeat(32);
const TOPIC = "arn:aws:sns:us-east-1:000000000000:ses";
/** The link a click redirects to: the one URL signed for the real activity. */
const TARGET = "https://shop.example/p?a=1&b=two words#top";
const db = createDb(process.env.DATABASE_URL!, { max: 10 });
const logger = createLogger({
  service: "ni-fuzz",
  level: (process.env.TEST_LOG_LEVEL ?? "silent") as "silent",
});
const broker = createBroker({
  url: process.env.RABBITMQ_URL!,
  name: "ni-fuzz",
  topology: messagingTopology,
  logger,
});
const { certPem, privateKeyPem } = readSnsTestFixtures();

let certServer: http.Server;
let certBase: string;
let certUrl: string;
let deps: Deps;
let app: ReturnType<typeof createApp>;
let activityId: string;
let providerId: string;
/** Each failed write of tracking hits (the writer tries the batch again, every later hit behind it). */
const writeErrors: string[] = [];

beforeAll(async () => {
  // The signing certificate, and what a certificate URL on an allowed host may answer instead.
  certServer = http.createServer((req, res) => {
    if (req.url?.startsWith("/cert.pem")) res.end(certPem);
    else if (req.url === "/garbage.pem") res.end("not a certificate");
    else if (req.url === "/redirect.pem") res.writeHead(302, { Location: "/cert.pem" }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => certServer.listen(0, "127.0.0.1", r));
  certBase = `http://127.0.0.1:${(certServer.address() as { port: number }).port}`;
  certUrl = `${certBase}/cert.pem`;
  await broker.ready();
  const verifier = createSnsVerifier({
    allowedCertHosts: /^127\.0\.0\.1$/,
    allowHttpCertUrls: true,
    topicArnAllowlist: [TOPIC],
  });
  deps = {
    name: "notification-ingest",
    logger,
    metrics: createMetrics("ni_fuzz"),
    db,
    broker,
    env: { TRACKING_SECRET: SECRET } as Deps["env"],
    outbox: {
      kick: () => undefined,
      handoff: () => null,
      start: () => undefined,
      stop: async () => undefined,
    },
    hits: createGroupWriter<TrackingHit>({
      logger,
      write: (batch) =>
        recordTrackingHits(db, batch).then(
          () => undefined,
          (err: unknown) => {
            writeErrors.push(String(err));
            throw err;
          },
        ),
    }),
    verify: (m) => verifier.verify(m),
  };
  app = createApp(deps);
  // A real activity, so that a valid id, click and unsubscribe link, and notification, reach the database.
  const projectId = randomUUID();
  const messageId = randomUUID();
  activityId = randomUUID();
  providerId = `prov-${randomUUID()}`;
  await db.pool.query(
    "INSERT INTO projects (id, name, webhook_url, webhook_url_dev) VALUES ($1, 'p', $2, $2)",
    [projectId, "https://hooks.example.test/events"],
  );
  await db.pool.query(
    "INSERT INTO email_messages (id, project_id, source, from_email, subject, html) VALUES ($1, $2, 'api', 'a@b.c', 's', 'h')",
    [messageId, projectId],
  );
  await db.pool.query(
    "INSERT INTO activities (id, project_id, email_message_id, recipient, status, provider_message_id) VALUES ($1, $2, $3, 'fuzz@example.com', 'sent', $4)",
    [activityId, projectId, messageId, providerId],
  );
});
afterAll(async () => {
  await deps?.hits.flush();
  certServer?.close();
  await broker.close();
  await db.close();
});

type Op = FuzzOp;

const ingestOps = () =>
  operationsOf(publicOpenApi(), (_path, op) => op["x-service"] === "notification-ingest");

// --- SNS envelopes -----------------------------------------------------------------------------------------------

const sesEvent = (extra: Record<string, unknown> = {}) => ({
  eventType: "Delivery",
  mail: { messageId: providerId, timestamp: "2026-11-22T10:00:00.000Z", destination: ["fuzz@example.com"] },
  delivery: { timestamp: "2026-11-22T10:00:00.000Z", recipients: ["fuzz@example.com"] },
  ...extra,
});

/** MessageIds of the notifications this file signed: the consumer's outcomes are kept for these only. */
const sentIds = new Set<string>();
/** MessageIds of the notifications the receiver took (answered 200): each must reach the consumer. */
const queued = new Set<string>();

/** A notification as SNS signs it (`over` replaces fields before signing, so the signature holds). */
function signed(
  over: Record<string, unknown> = {},
  opts: { version?: "1" | "2"; cert?: string } = {},
): SnsMessage {
  const msg = {
    Type: "Notification",
    MessageId: randomUUID(),
    TopicArn: TOPIC,
    Message: JSON.stringify(sesEvent()),
    Timestamp: new Date().toISOString(),
    ...over,
  } as SnsMessage;
  sentIds.add(String(msg.MessageId));
  return signSnsMessage(msg, {
    privateKeyPem,
    certUrl: opts.cert ?? certUrl,
    ...(opts.version ? { signatureVersion: opts.version } : {}),
  });
}

const confirmation = (type: string, subscribeUrl?: string) =>
  signed({
    Type: type,
    Token: "tok",
    Message: "confirm",
    ...(subscribeUrl === undefined ? {} : { SubscribeURL: subscribeUrl }),
  });

const text = (label: string, body: unknown, contentType = "text/plain; charset=UTF-8"): BodyCase => ({
  label,
  raw: { text: typeof body === "string" ? body : JSON.stringify(body), contentType },
});

/** Envelopes SNS could send, or someone posing as it: each passes or fails verification on its own account. */
function oddEnvelopes(): BodyCase[] {
  const valid = signed();
  return [
    text("valid, text/plain as SNS sends it", signed()),
    text("valid, application/json", signed(), "application/json"),
    text("valid, form content type", signed(), "application/x-www-form-urlencoded"),
    text("valid, SignatureVersion 1", signed({}, { version: "1" })),
    text("valid, trailing whitespace", `${JSON.stringify(signed())}\n\n`),
    text("valid, Subject added", signed({ Subject: "Amazon SES Email Event Notification" })),
    text("the same MessageId twice", valid),
    text("the same MessageId twice (again)", valid),
    // wrong Type (unsigned: SNS signs only its three types)
    text("Type unknown", { ...valid, Type: "Weird" }),
    text("Type lower-case", { ...valid, Type: "notification" }),
    text("Type a number", { ...valid, Type: 1 }),
    text("Type an object", { ...valid, Type: { S: "Notification" } }),
    // subscription messages
    text("SubscriptionConfirmation without SubscribeURL", confirmation("SubscriptionConfirmation")),
    text("SubscribeURL not AWS", confirmation("SubscriptionConfirmation", "https://evil.example/confirm")),
    text(
      "SubscribeURL over http",
      confirmation("SubscriptionConfirmation", "http://sns.us-east-1.amazonaws.com/"),
    ),
    text(
      "SubscribeURL on an AWS-like host",
      confirmation("SubscriptionConfirmation", "https://sns.us-east-1.amazonaws.com.evil.example/"),
    ),
    text("SubscribeURL not a URL", confirmation("SubscriptionConfirmation", "not a url")),
    text(
      "SubscribeURL with a bad port",
      confirmation("SubscriptionConfirmation", "https://sns.us-east-1.amazonaws.com:99999/"),
    ),
    text("UnsubscribeConfirmation", confirmation("UnsubscribeConfirmation")),
    // missing fields (the signature then covers what is left)
    ...(
      [
        "MessageId",
        "TopicArn",
        "Message",
        "Timestamp",
        "Signature",
        "SignatureVersion",
        "SigningCertURL",
      ] as const
    ).map((k) => {
      const { [k]: _drop, ...rest } = signed() as unknown as Record<string, unknown>;
      return text(`${k} missing`, rest);
    }),
    text("Message missing, signed so", signed({ Message: undefined })),
    text("TopicArn not allowed, signed", signed({ TopicArn: "arn:aws:sns:us-east-1:000000000000:other" })),
    text("Signature not base64", { ...valid, Signature: "%%%not base64%%%" }),
    text("Signature empty", { ...valid, Signature: "" }),
    text("SignatureVersion 3", { ...valid, SignatureVersion: "3" }),
    text(
      "SigningCertUrl spelling",
      (() => {
        const { SigningCertURL, ...rest } = signed();
        return { ...rest, SigningCertUrl: SigningCertURL };
      })(),
    ),
    // bad certificate URLs (not part of what is signed)
    ...[
      "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-x.pem",
      `${certBase}/garbage.pem`,
      `${certBase}/missing.pem`,
      `${certBase}/redirect.pem`,
      `${certBase}/cert.txt`,
      `${certBase}/cert.pem?x=1`,
      "http://127.0.0.1:1/cert.pem",
      `http://user:pw@127.0.0.1:${new URL(certBase).port}/cert.pem`,
      "file:///etc/ssl/cert.pem",
      "not a url",
      "",
      "x".repeat(3_000),
    ].map((cert) => text(`SigningCertURL ${cert.slice(0, 60)}`, signed({}, { cert }))),
    // odd Messages, authentic: each is queued; the consumer applies or parks it
    text("Message not JSON", signed({ Message: "not json" })),
    text("Message JSON null", signed({ Message: "null" })),
    text("Message JSON array", signed({ Message: "[]" })),
    text("Message empty", signed({ Message: "" })),
    text("Message an object, not text", signed({ Message: { eventType: "Delivery" } })),
    text("Message without mail", signed({ Message: JSON.stringify({ eventType: "Delivery" }) })),
    text(
      "Message of another event type",
      signed({ Message: JSON.stringify(sesEvent({ eventType: "Open" })) }),
    ),
    text(
      "Message with a legacy notificationType",
      signed({
        Message: JSON.stringify({ ...sesEvent(), eventType: undefined, notificationType: "Delivery" }),
      }),
    ),
    text(
      "Message huge (just under 256 KB in all)",
      signed({ Message: JSON.stringify(sesEvent({ delivery: { smtpResponse: "x".repeat(240_000) } })) }),
    ),
    text(
      "Message past 256 KB",
      signed({ Message: JSON.stringify(sesEvent({ padding: "x".repeat(300_000) })) }),
    ),
    text(
      "Message with a bad timestamp",
      signed({ Message: JSON.stringify(sesEvent({ delivery: { timestamp: "2026-02-30T25:61:00Z" } })) }),
    ),
    // text SES copies from elsewhere (a receiving server's reply, a decoded header) may hold what JSON escapes
    text(
      "Message with a NUL",
      signed({ Message: JSON.stringify(sesEvent({ delivery: { smtpResponse: "250 a\u0000b" } })) }),
    ),
    text(
      "Message with an unpaired surrogate",
      signed({ Message: JSON.stringify(sesEvent({ delivery: { smtpResponse: "250 a\ud800b" } })) }),
    ),
    text(
      "Bounce whose diagnostic code has a NUL",
      signed({
        Message: JSON.stringify(
          sesEvent({
            eventType: "Bounce",
            delivery: undefined,
            bounce: {
              bounceType: "Permanent",
              bouncedRecipients: [{ emailAddress: "fuzz@example.com", diagnosticCode: "550 \u0000\udc00" }],
            },
          }),
        ),
      }),
    ),
  ];
}

// --- the rule ----------------------------------------------------------------------------------------------------

/** An HTML page that names its reason: a title and a paragraph. */
const htmlSaysWhy = (res: request.Response) =>
  /^text\/html/.test(res.headers["content-type"] ?? "") && /<h1[^>]*>[^<]+<\/h1>\s*<p>[^<]+/.test(res.text);

/**
 * What is wrong with an answer, or null. `redirectTo`: the only URL a click may redirect to (the one signed for the
 * id), null where nothing was signed.
 */
function problem(op: Op, res: request.Response, redirectTo: string | null): string | null {
  if (res.status >= 500) return "a 5xx";
  const json = typeof res.body?.error === "string" && res.body.error.length > 0;
  if (op.path === "/t/o/{id}" && res.status === 200)
    return res.headers["content-type"] === "image/gif" ? null : "the pixel is not a GIF";
  if (res.status >= 300 && res.status < 400)
    return op.path === "/t/c/{id}" &&
      res.status === 302 &&
      redirectTo !== null &&
      res.headers.location === encodeUrl(redirectTo)
      ? null
      : `a redirect to ${String(res.headers.location).slice(0, 80)}`;
  if (res.status < 400) return null;
  // a 4xx: JSON `error` (every 404 included: Express's fallback is JSON), or the unsubscribe page with its reason
  if (json || (op.path === "/t/u/{id}" && res.status !== 404 && htmlSaysWhy(res))) return null;
  return "a 4xx that does not say why";
}

async function send(
  op: Op,
  url: string,
  c: BodyCase | null,
  failures: FuzzFailure[],
  label: string,
  redirectTo: string | null = null,
): Promise<request.Response | null> {
  const r = request(app)[op.method as "post"](url);
  const body = c ? caseText(c) : null;
  const answer = c ? r.set("Content-Type", caseContentType(c, "text/plain; charset=UTF-8")).send(body!) : r;
  const res = await judgeCase(
    `${op.method.toUpperCase()} ${url.slice(0, 120)} ${label}`,
    answer,
    (res) => problem(op, res, redirectTo),
    failures,
  );
  // a notification taken (200 without a `message`, which confirmations carry): the consumer must see it
  if (res && op.path === "/webhooks/provider" && res.status === 200 && !("message" in res.body))
    queued.add(String((JSON.parse(body!) as { MessageId?: unknown }).MessageId));
  return res;
}

// --- the cases ---------------------------------------------------------------------------------------------------

/** The real value of each query parameter, for the real activity. */
const realQuery = (path: string): Record<string, string> =>
  path === "/t/c/{id}"
    ? { url: encodeURIComponent(TARGET), sig: signTrackedUrl(SECRET, activityId, TARGET) }
    : path === "/t/u/{id}"
      ? { sig: signUnsubscribe(SECRET, activityId) }
      : {};

/**
 * Links a client's email may carry: send-time signs every link of the HTML it is given, so the `url` of a signed
 * click is whatever the client wrote. Each is redirected to as signed (encoded) or refused (not http(s)).
 */
const SIGNED_TARGETS = [
  "javascript:alert(1)",
  "//evil.example/",
  "https:evil.example",
  "HTTPS://SHOP.EXAMPLE/",
  "https://user:pw@shop.example/",
  "https://shop.example/\r\nSet-Cookie: a=b",
  "https://shop.example/ä ö?q=ü#frag",
  "https://shop.example/%E0%A4%A",
  "https://shop.example/\u0000",
  "https://shop.example/\u2028\u2029\u0085",
  `https://shop.example/${"x".repeat(3_000)}`,
];

async function fuzzOp(op: Op): Promise<FuzzFailure[]> {
  const failures: FuzzFailure[] = [];
  const real = realQuery(op.path);
  const fill = (id = activityId) => op.path.replace("{id}", id);
  const query = (over: Record<string, string> = {}, extra: [string, string][] = []) => {
    const pairs = op.query.map((p): [string, string] => [p, over[p] ?? real[p]!]);
    const all = [...pairs, ...extra].map(([k, v]) => `${k}=${v}`);
    return all.length ? `?${all.join("&")}` : "";
  };
  const isClick = op.path === "/t/c/{id}";
  // The body each case carries: a valid notification (a new one each time) to the receiver, and to POST /t/u
  // RFC 8058's one-click body, as a mailbox provider's unsubscribe button sends it.
  const plausible = (): BodyCase | null =>
    op.body
      ? text("valid notification", signed())
      : op.path === "/t/u/{id}" && op.method === "post"
        ? text("one-click", "List-Unsubscribe=One-Click", "application/x-www-form-urlencoded")
        : null;

  if (op.path.includes("{id}")) {
    await send(op, fill() + query(), plausible(), failures, "real", isClick ? TARGET : null);
    for (const v of [randomUUID(), activityId.toUpperCase(), `${activityId}%20`, ...BAD_PATH_SEGMENTS])
      await send(op, fill(v) + query(), plausible(), failures, `id=${v.slice(0, 40)}`);
  }
  for (const v of BAD_QUERY_VALUES) {
    const label = `=${v.slice(0, 20)}`;
    for (const q of op.query) {
      await send(op, fill() + query({ [q]: v }), plausible(), failures, `?${q}${label}`);
      await send(op, fill() + query({}, [[q, v]]), plausible(), failures, `?${q} twice, ${label}`);
    }
    // an unknown parameter changes nothing: a real click still redirects to its URL
    await send(
      op,
      fill() + query({}, [["unknown_param", v]]),
      plausible(),
      failures,
      `?unknown${label}`,
      isClick ? TARGET : null,
    );
  }
  if (isClick)
    for (const t of SIGNED_TARGETS)
      await send(
        op,
        fill() + query({ url: encodeURIComponent(t), sig: signTrackedUrl(SECRET, activityId, t) }),
        null,
        failures,
        `signed url=${JSON.stringify(t.slice(0, 40))}`,
        /^https?:\/\//i.test(t) ? t : null,
      );
  // a link we signed for an activity that is not here (another installation's, or one since removed)
  const gone = randomUUID();
  if (isClick)
    await send(
      op,
      fill(gone) + query({ sig: signTrackedUrl(SECRET, gone, TARGET) }),
      null,
      failures,
      "signed, unknown activity",
      TARGET,
    );
  if (op.path === "/t/u/{id}")
    await send(
      op,
      fill(gone) + query({ sig: signUnsubscribe(SECRET, gone) }),
      plausible(),
      failures,
      "signed, unknown activity",
    );
  if (op.path === "/t/u/{id}" && op.method === "post")
    for (const c of RAW_BODIES) await send(op, fill() + query(), c, failures, c.label);
  if (op.body) {
    const base = { ...(sample(op.body) as object), ...signed() };
    for (const c of [...bodyCases(op.body, base), ...RAW_BODIES, ...oddEnvelopes()])
      await send(op, fill(), c, failures, c.label);
    // the fast path takes the path with a trailing slash; any other spelling is Express's 404
    for (const tail of ["/", "//", "/x", "%2F", "%00", ";x"])
      await send(op, fill() + tail, plausible(), failures, `path + ${tail}`);
  }
  // The real request several times at once (a scanner and a reader, a retried delivery): one body for all.
  const once = plausible();
  await Promise.all(
    Array.from({ length: 4 }, () =>
      send(op, fill() + query(), once, failures, "4 at once", isClick ? TARGET : null),
    ),
  );
  return failures;
}

describe("notification-ingest routes: every bad input has an answer below 500 that says why", () => {
  it("covers every route notification-ingest serves, fast paths included", () => {
    const served = [...listExpressRoutes(app), ...TRACKING_ROUTES, ...PROVIDER_WEBHOOK_ROUTES].sort();
    const fuzzed = ingestOps()
      .map((o) => `${o.method.toUpperCase()} ${o.path.replace(/\{(\w+)\}/g, ":$1")}`)
      .sort();
    expect(fuzzed).toEqual(served);
  });

  describe.each(ingestOps().map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s",
    (_name, op) => {
      // What the SNS receiver queues, the real consumer takes: none of it waits in the queue for the next file.
      const outcomes = new Map<string, string>();
      let consumer: ConsumerHandle | undefined;
      beforeAll(async () => {
        if (op.path !== "/webhooks/provider") return;
        const real = notificationConsumer({ db, logger, kickOutbox: () => undefined });
        consumer = await broker.consume(
          {
            ...real,
            async handle(envelope: Envelope, ctx: MessageContext) {
              const id = String((envelope.payload as { notificationId?: unknown }).notificationId);
              try {
                await real.handle(envelope, ctx);
                if (sentIds.has(id)) outcomes.set(id, "taken");
              } catch (err) {
                if (sentIds.has(id))
                  outcomes.set(id, err instanceof PermanentError ? "parked" : `retried: ${String(err)}`);
                throw err;
              }
            },
          },
          { prefetch: 20 },
        );
      });
      afterAll(async () => {
        await consumer?.close();
      });

      it("answers every case", async () => {
        expect(await fuzzOp(op)).toEqual([]);
        // every open and click answered is recorded
        await deps.hits.flush(2_000);
        expect(writeErrors).toEqual([]);
        if (!consumer) return;
        // every notification taken is applied or parked as unreadable by the consumer, none retried
        expect(queued.size).toBeGreaterThan(0);
        const seen = () => [...queued].every((id) => outcomes.has(id));
        for (let i = 0; i < 200 && !seen(); i++) await new Promise((r) => setTimeout(r, 50));
        expect(
          [...queued].map((id) => [id, outcomes.get(id)]).filter(([, o]) => o !== "taken" && o !== "parked"),
        ).toEqual([]);
      });
    },
  );
});
