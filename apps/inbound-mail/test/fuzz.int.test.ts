// Bad input on every public route inbound-mail serves, derived from the OpenAPI document's schemas (@emailsvc/testing's
// fuzz cases), on the real stack of ./harness: SNS envelopes of every odd shape, signed (with the simulator's test
// key) and not, around SES receipts whose fields are each bad in turn; attachment links with a bad id, expiry or
// signature. Every answer must be below 500 (each input a client can send has a defined answer) and a 4xx must say
// what was wrong.
import { createHash, randomUUID } from "node:crypto";
import request from "supertest";
import { publicOpenApi } from "@emailsvc/contracts";
import { listExpressRoutes } from "@emailsvc/http";
import { readSnsTestFixtures, signSnsMessage } from "@emailsvc/provider";
import {
  BAD_PATH_SEGMENTS,
  BAD_QUERY_VALUES,
  BAD_VALUES,
  bodyCases,
  RAW_BODIES,
  type BodyCase,
  waitFor,
  operationsOf,
  type FuzzOp,
  caseContentType,
  caseText,
  judgeCase,
  jsonAnswerProblem,
  type FuzzFailure,
} from "@emailsvc/testing";
import { ATTACHMENT_LINK_ROUTES } from "../src/attachments/attachment-link.routes";
import { attachmentLink } from "../src/attachments/domain/attachment-link";
import { INBOUND_PROVIDER_ROUTES } from "../src/replies/inbound-provider.routes";
import { BUCKET, deliverRaw, INBOUND_TOPIC, receivedMessage, startStack, type Stack } from "./harness";

jest.setTimeout(120_000);

const fixtures = readSnsTestFixtures();
/** 64 KB that PostgreSQL cannot compress (BAD_VALUES' long string compresses to nothing, and fits any index). */
const INCOMPRESSIBLE = Array.from({ length: 1_000 }, (_, i) =>
  createHash("sha256").update(String(i)).digest("hex"),
).join("");
let stack: Stack;
/** A real attachment (an unmatched reply's) and its valid link's query. */
let attachmentId: string;
let linkQuery: Record<string, string>;
/** A real MIME in the inbound bucket, which the fuzzed receipts point at (a missing one is retried for minutes). */
let objectKey: string;

beforeAll(async () => {
  // the refusals this file provokes are warnings by the hundred: errors only, unless asked
  stack = await startStack({ extraEnv: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error" } });
  const raw =
    "From: Sam <sam@example.org>\r\nTo: support@inbound.test\r\nSubject: fuzz\r\n" +
    `Message-ID: <${randomUUID()}@example.org>\r\nMIME-Version: 1.0\r\n` +
    "Content-Type: multipart/mixed; boundary=q\r\n\r\n--q\r\nContent-Type: text/plain\r\n\r\nsee file\r\n" +
    '--q\r\nContent-Type: application/pdf; name="a.pdf"\r\nContent-Disposition: attachment; filename="a.pdf"\r\n' +
    "Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJSVFT0YK\r\n--q--\r\n";
  const delivered = await deliverRaw(stack, raw, ["support@inbound.test"]);
  objectKey = delivered.objectKey;
  attachmentId = await waitFor(
    async () =>
      (
        await stack.db.pool.query<{ id: string }>(
          `SELECT a.id FROM inbound_attachments a JOIN inbound_notifications n
              ON n.inbound_message_id = a.inbound_message_id WHERE n.ses_message_id = $1`,
          [delivered.sesMessageId],
        )
      ).rows[0]?.id,
    30_000,
    "the attachment to be stored",
  );
  const link = new URL(
    attachmentLink(
      stack.inbound.url,
      stack.env.TRACKING_SECRET!,
      attachmentId,
      new Date(Date.now() + 86_400_000),
    ).url,
  );
  linkQuery = Object.fromEntries(link.searchParams);
});
afterAll(async () => {
  // Notifications left unprocessed would be retried for minutes by the package's next file (same vhost and
  // database): finished here, a leftover message finds them done.
  await stack?.db.pool
    .query("UPDATE inbound_notifications SET status = 'failed' WHERE status = 'received'")
    .catch(() => undefined);
  await stack?.close();
});

type Op = FuzzOp;

const inboundOps = () => operationsOf(publicOpenApi(), (_path, op) => op["x-service"] === "inbound-mail");

/** Sends one case and records it when the answer is a 5xx, or a 4xx (but 404) without an `error` string. */
/** Sends one case; a HEAD answer has no body, so its 4xx must still be one of ours (JSON), not a bare status. */
function send(
  method: string,
  url: string,
  c: BodyCase | null,
  failures: FuzzFailure[],
  label: string,
  contentType = "application/json",
): Promise<request.Response | null> {
  const r = request(stack.inbound.url)[method as "post"](url);
  const answer = c ? r.set("Content-Type", caseContentType(c, contentType)).send(caseText(c)) : r;
  const problem = (res: request.Response) =>
    method !== "head"
      ? jsonAnswerProblem(res, { allow404: true })
      : res.status >= 500
        ? `answered ${res.status}`
        : res.status >= 400 &&
            res.status !== 404 &&
            !/^application\/json/.test(String(res.headers["content-type"]))
          ? `a ${res.status} that is not JSON`
          : null;
  return judgeCase(`${method.toUpperCase()} ${url.slice(0, 120)} ${label}`, answer, problem, failures);
}

/**
 * The generic cases of an operation: each path parameter bad in turn (the others real), each query parameter bad
 * in turn and repeated (the others real), each body case of its schema and each odd whole body.
 */
async function fuzzOp(op: Op, real: (param: string) => string, realQuery: Record<string, string>) {
  const failures: FuzzFailure[] = [];
  const fill = (over: Record<string, string> = {}) =>
    op.path.replace(/\{(\w+)\}/g, (_m, name: string) => over[name] ?? real(name));
  const qs = (over: Record<string, string> = {}, twice?: string) => {
    const q = new URLSearchParams({ ...realQuery });
    let text = [...q.keys()]
      .filter((k) => !(k in over))
      .map((k) => `${k}=${encodeURIComponent(q.get(k)!)}`)
      .concat(Object.entries(over).map(([k, v]) => `${k}=${v}`)) // the bad values raw, as a client may send them
      .join("&");
    if (twice) text += `&${twice}=2`;
    return text ? `?${text}` : "";
  };
  const plausible: BodyCase | null = op.body ? bodyCases(op.body)[0]! : null;
  for (const name of [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))
    for (const v of [randomUUID(), ...BAD_PATH_SEGMENTS])
      await send(
        op.method,
        fill({ [name]: v }) + qs(),
        plausible,
        failures,
        `${name}=${v.slice(0, 40)}`,
        op.contentType,
      );
  const url = fill();
  for (const q of [...op.query, "unknown_param"])
    for (const v of BAD_QUERY_VALUES) {
      await send(
        op.method,
        url + qs({ [q]: v }),
        plausible,
        failures,
        `?${q}=${v.slice(0, 20)}`,
        op.contentType,
      );
      await send(op.method, url + qs({ [q]: v }, q), plausible, failures, `?${q} twice`, op.contentType);
    }
  if (op.body) {
    for (const c of bodyCases(op.body)) await send(op.method, url, c, failures, c.label, op.contentType);
    for (const c of RAW_BODIES) await send(op.method, url, c, failures, c.label, op.contentType);
  }
  return failures;
}

describe("inbound-mail: every bad input has an answer below 500", () => {
  it("covers every public route inbound-mail serves", () => {
    const served = [
      ...listExpressRoutes(stack.inbound.app!),
      ...INBOUND_PROVIDER_ROUTES,
      ...ATTACHMENT_LINK_ROUTES,
    ].sort();
    const fuzzed = inboundOps()
      .map((o) => `${o.method.toUpperCase()} ${o.path.replace(/\{(\w+)\}/g, ":$1")}`)
      .sort();
    expect(fuzzed).toEqual(served);
  });

  it.each(inboundOps().map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s: bad path, query and body values",
    async (_name, op) => {
      const query = op.path.startsWith("/api/inbound/attachments/") ? linkQuery : {};
      expect(await fuzzOp(op, () => attachmentId, query)).toEqual([]);
    },
  );
});

describe("POST /api/inbound/provider: odd SNS envelopes", () => {
  const PATH = "/api/inbound/provider";
  const certUrl = () => `${stack.sim.url}/_sim/cert.pem`;
  const receipt = () => receivedMessage(`ses-${randomUUID()}`, objectKey, ["support@inbound.test"]);
  const unsigned = (over: Record<string, unknown> = {}) => ({
    Type: "Notification",
    MessageId: randomUUID(),
    TopicArn: INBOUND_TOPIC,
    Subject: "Amazon SES Email Receipt Notification",
    Message: JSON.stringify(receipt()),
    Timestamp: new Date().toISOString(),
    ...over,
  });
  /** Signed as SNS signs, whatever its fields hold; a Type SNS does not sign gets a signature of nothing. */
  const signed = (msg: unknown, url = certUrl()): unknown => {
    if (!msg || typeof msg !== "object" || Array.isArray(msg)) return msg;
    try {
      return signSnsMessage(msg as Parameters<typeof signSnsMessage>[0], {
        privateKeyPem: fixtures.privateKeyPem,
        certUrl: url,
      });
    } catch {
      return { ...msg, SignatureVersion: "2", Signature: "AAAA", SigningCertURL: url };
    }
  };
  const post = (
    body: unknown,
    failures: FuzzFailure[],
    label: string,
    contentType = "text/plain; charset=UTF-8",
  ) =>
    send(
      "post",
      PATH,
      { label, raw: { text: typeof body === "string" ? body : JSON.stringify(body), contentType } },
      failures,
      label,
    );
  // `bodyCases({ const: value })`: the cases of a real value (a schema that is exactly it), each field bad in turn
  /** The cases of the sub-object at `path` of `base`, each put in place (its whole-value cases are the parent's). */
  const nested = (base: Record<string, unknown>, path: string[]): BodyCase[] => {
    let at: unknown = base;
    for (const k of path) at = (at as Record<string, unknown>)[k];
    return bodyCases({ const: at })
      .filter((c) => !c.label.startsWith("body =") && c.label !== "plausible body")
      .map((c) => {
        const copy = structuredClone(base);
        let parent = copy as Record<string, unknown>;
        for (const k of path.slice(0, -1)) parent = parent[k] as Record<string, unknown>;
        parent[path.at(-1)!] = c.json;
        return { label: `${path.join(".")}.${c.label}`, json: copy };
      });
  };

  it("the real thing is stored, and answered again when SNS redelivers it", async () => {
    const failures: FuzzFailure[] = [];
    const msg = signed(unsigned());
    const first = await post(msg, failures, "signed receipt");
    // processed before the answer (spec 4.9): stored, or a duplicate of the same MIME an earlier case stored
    expect(first?.body).toMatchObject({ success: true });
    expect(["processed", "unmatched", "duplicate"]).toContain(first?.body.status);
    const again = await post(msg, failures, "redelivered");
    expect(again?.body).toMatchObject({ success: true });
    expect(failures).toEqual([]);
  });

  it("a signed envelope with each field bad in turn (signed after the change)", async () => {
    const failures: FuzzFailure[] = [];
    for (const c of bodyCases({ const: unsigned() })) await post(signed(c.json), failures, c.label);
    for (const field of ["MessageId", "Subject", "Timestamp"])
      await post(signed(unsigned({ [field]: INCOMPRESSIBLE })), failures, `${field} 64 KB`);
    expect(failures).toEqual([]);
  });

  it("a signed envelope with its signature fields bad in turn (changed after signing)", async () => {
    const failures: FuzzFailure[] = [];
    for (const c of bodyCases({ const: signed(unsigned()) }).filter((c) => !c.label.startsWith("body =")))
      await post(c.json, failures, c.label);
    expect(failures).toEqual([]);
  });

  it("a signed Notification whose SES receipt has each field bad in turn", async () => {
    const failures: FuzzFailure[] = [];
    const base = receipt();
    const inline = {
      ...receipt(),
      receipt: { recipients: ["support@inbound.test"], action: { type: "SNS", encoding: "UTF8" } },
      content: "From: a@example.org\r\nTo: support@inbound.test\r\n\r\nhi",
    };
    const long = (path: string[]): BodyCase => {
      const copy = structuredClone(base) as Record<string, Record<string, unknown>>;
      const parent = path
        .slice(0, -1)
        .reduce<Record<string, unknown>>((at, k) => at[k] as Record<string, unknown>, copy);
      parent[path.at(-1)!] = path.at(-1) === "recipients" ? [INCOMPRESSIBLE] : INCOMPRESSIBLE;
      return { label: `${path.join(".")} 64 KB`, json: copy };
    };
    const cases = [
      ...bodyCases({ const: base }),
      ...nested(base, ["receipt", "action"]),
      ...nested(base, ["receipt", "dmarcVerdict"]),
      ...bodyCases({ const: inline }).filter((c) => c.label.startsWith("content")),
      ...[
        ["mail", "messageId"],
        ["mail", "source"],
        ["receipt", "recipients"],
        ["receipt", "action", "objectKey"],
      ].map(long),
    ];
    for (const c of cases)
      await post(signed(unsigned({ Message: JSON.stringify(c.json) })), failures, `Message: ${c.label}`);
    expect(failures).toEqual([]);
  });

  it("wrong Types, confirmations, certificate URLs, sizes and content types", async () => {
    const failures: FuzzFailure[] = [];
    const confirmation = (type: string, over: Record<string, unknown> = {}) =>
      unsigned({
        Type: type,
        Token: "tok",
        Message: "You have chosen to subscribe",
        Subject: undefined,
        ...over,
      });
    const cases: [string, unknown][] = [
      ...["Foo", "notification", "", "SubscriptionConfirmation "].map((t): [string, unknown] => [
        `Type ${JSON.stringify(t)}`,
        signed(unsigned({ Type: t })),
      ]),
      // a SubscribeURL that is not AWS SNS's is refused before any request (one that is would be fetched)
      ...[
        "https://evil.example/confirm",
        "http://sns.us-east-1.amazonaws.com/confirm",
        "https://sns.us-east-1.amazonaws.com.evil.example/x",
        "javascript:alert(1)",
        "",
      ].map((u): [string, unknown] => [
        `SubscribeURL ${u}`,
        signed(confirmation("SubscriptionConfirmation", { SubscribeURL: u })),
      ]),
      ...BAD_VALUES.map((v, i): [string, unknown] => [
        `SubscribeURL BAD_VALUES[${i}]`,
        signed(confirmation("SubscriptionConfirmation", { SubscribeURL: v })),
      ]),
      ["UnsubscribeConfirmation", signed(confirmation("UnsubscribeConfirmation"))],
      ...[
        "http://evil.example/cert.pem",
        "https://sns.us-east-1.amazonaws.com/cert.pem",
        "http://127.0.0.1.evil.example/cert.pem",
        "http://user:pw@127.0.0.1/cert.pem",
        "ftp://127.0.0.1/cert.pem",
        "http://127.0.0.1:1/cert.pem",
        `${stack.sim.url}/_sim/none.pem`,
        `${stack.sim.url}/_sim/cert.pem.txt`,
        `${stack.inbound.url}/readyz.pem`, // allowed, fetched: not a certificate
        "not a url",
      ].map((u): [string, unknown] => [`SigningCertURL ${u}`, signed(unsigned(), u)]),
      [
        "signed with SHA1 (SignatureVersion 1)",
        signSnsMessage(unsigned(), {
          privateKeyPem: fixtures.privateKeyPem,
          certUrl: certUrl(),
          signatureVersion: "1",
        }),
      ],
      [
        "SigningCertUrl spelling",
        (() => {
          const { SigningCertURL, ...m } = signed(unsigned()) as Record<string, unknown>;
          return { ...m, SigningCertUrl: SigningCertURL };
        })(),
      ],
      ["another topic", signed(unsigned({ TopicArn: "arn:aws:sns:us-east-1:999999999999:evil" }))],
      [
        "a Message near SNS's 256 KB",
        signed(unsigned({ Message: JSON.stringify({ ...receipt(), pad: "x".repeat(250_000) }) })),
      ],
      ["a Message past SNS's 256 KB", signed(unsigned({ Message: "x".repeat(300_000) }))],
      ["a 2 MB body", "x".repeat(2_000_000)],
      ["Message not JSON", signed(unsigned({ Message: "not json" }))],
      ["Message empty", signed(unsigned({ Message: "" }))],
      [
        "Message an SES Delivery event",
        signed(unsigned({ Message: JSON.stringify({ eventType: "Delivery", mail: { messageId: "x" } }) })),
      ],
      [
        "Message a Bounce notification",
        signed(unsigned({ Message: JSON.stringify({ notificationType: "Bounce", bounce: {} }) })),
      ],
      [
        "Message an SNS action without content",
        signed(unsigned({ Message: JSON.stringify({ ...receipt(), receipt: { action: { type: "SNS" } } }) })),
      ],
      [
        "Message an inline MIME",
        signed(
          unsigned({
            Message: JSON.stringify({
              ...receipt(),
              receipt: { action: { type: "SNS", encoding: "BASE64" } },
              content: Buffer.from("From: a@example.org\r\n\r\nhi").toString("base64"),
            }),
          }),
        ),
      ],
      [
        "Message a receipt from another bucket",
        signed(
          unsigned({
            Message: JSON.stringify(
              receivedMessage(`ses-${randomUUID()}`, objectKey, [], { bucketName: `${BUCKET}-other` }),
            ),
          }),
        ),
      ],
      ["Message nested 5,000 deep", signed(unsigned({ Message: "[".repeat(5_000) + "]".repeat(5_000) }))],
    ];
    for (const [label, body] of cases) await post(body, failures, label);
    // SNS posts text/plain; a client may say anything
    for (const type of [
      "application/json",
      "application/x-www-form-urlencoded",
      "text/plain; charset=utf-16",
      "application/octet-stream",
      "",
    ])
      await post(signed(unsigned()), failures, `Content-Type ${JSON.stringify(type)}`, type);
    expect(failures).toEqual([]);
  });
});

describe("GET /api/inbound/attachments/:id: links signed right around bad values", () => {
  const path = (id: string) => `/api/inbound/attachments/${id}`;
  const linkOf = (id: string, expiresAt: Date) =>
    new URL(attachmentLink("http://x", stack.env.TRACKING_SECRET!, id, expiresAt).url);

  it("the real link redirects; HEAD answers as GET", async () => {
    const res = await request(stack.inbound.url).get(path(attachmentId)).query(linkQuery).redirects(0);
    expect(res.status).toBe(302);
    const head = await request(stack.inbound.url).head(path(attachmentId)).query(linkQuery).redirects(0);
    expect(head.status).toBe(302);
  });

  it("ids, expiries and HEAD: each signed with the service's secret", async () => {
    const failures: FuzzFailure[] = [];
    const later = new Date(Date.now() + 3_600_000);
    for (const id of [randomUUID(), attachmentId.toUpperCase(), ...BAD_PATH_SEGMENTS]) {
      // signed over the id as the service reads it: the raw path segment
      await send("get", path(id) + linkOf(id, later).search, null, failures, `signed id=${id.slice(0, 40)}`);
    }
    for (const seconds of [0, 1, 999_999_999_999, Math.floor(Date.now() / 1000) - 1])
      await send(
        "get",
        path(attachmentId) + linkOf(attachmentId, new Date(seconds * 1000)).search,
        null,
        failures,
        `signed expires=${seconds}`,
      );
    for (const q of [
      { ...linkQuery, sig: linkQuery.sig!.toUpperCase() } as Record<string, string>,
      { expires: linkQuery.expires! },
      { sig: linkQuery.sig! },
      {},
    ])
      for (const method of ["get", "head"])
        await send(
          method,
          `${path(attachmentId)}?${new URLSearchParams(q)}`,
          null,
          failures,
          `${method} ?${Object.keys(q).join("&")}`,
        );
    for (const id of ["not-a-uuid", randomUUID()])
      await send("head", path(id), null, failures, `head id=${id}`);
    expect(failures).toEqual([]);
  });
});
