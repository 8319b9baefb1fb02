// Bad input on every public route shop-ingest serves, derived from the OpenAPI document's schema and the platform's
// own payloads (@emailsvc/testing's fuzz cases): bad topics, bad, missing and forged signatures, bad shop, project
// and webhook id headers, bodies of every odd shape, and correctly signed payloads with each field bad in turn. Every
// answer must be below 500 (each input a client can send has a defined answer) and a 4xx must say what was wrong.
import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import type { ProjectId } from "@emailsvc/contracts";
import request from "supertest";
import { publicOpenApi } from "@emailsvc/contracts";
import { listExpressRoutes } from "@emailsvc/http";
import {
  BAD_PATH_SEGMENTS,
  BAD_QUERY_VALUES,
  bodyCases,
  RAW_BODIES,
  type BodyCase,
  waitFor,
  operationsOf,
  caseContentType,
  caseText,
  judgeCase,
  jsonAnswerProblem,
  type FuzzFailure,
} from "@emailsvc/testing";
import { SHOP_WEBHOOK_ROUTES } from "../src/webhooks/shop-webhook.fast-path";
import { signShopBody } from "../src/webhooks/verify-shop-hmac";
import { corpus, type Harness, startHarness } from "./harness";

jest.setTimeout(120_000);

const SECRET = "shop-fuzz-secret-0123456789";
let h: Harness;
let server: http.Server;
let base: string;
/** a shop with a secret (every delivery signed), and one without (nothing to sign) */
let signedShop: { domain: string; projectId: ProjectId };
let openShop: { domain: string; projectId: ProjectId };

beforeAll(async () => {
  h = await startHarness();
  // one server for the whole file: supertest would start one per request
  server = http.createServer(h.app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const run = Date.now().toString(36);
  const a = await h.makeProject();
  signedShop = { domain: `fuzz-${run}.myshop.test`, projectId: a.projectId };
  await h.connect(a.projectId, signedShop.domain, { secret: SECRET });
  const b = await h.makeProject();
  openShop = { domain: `fuzz-open-${run}.myshop.test`, projectId: b.projectId };
  await h.connect(b.projectId, openShop.domain, { secret: null });
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await h?.close();
});

const shopOps = () => operationsOf(publicOpenApi(), (_path, op) => op["x-service"] === "shop-ingest");

const TOPICS = ["cart/update", "checkout/create", "order/create"] as const;
const PAYLOADS = {
  "cart/update": "carts-update",
  "checkout/create": "checkouts-create",
  "order/create": "orders-create",
} as const;
const payload = (topic: (typeof TOPICS)[number]) => corpus(PAYLOADS[topic]);

interface Delivery {
  /** the path after /webhooks/shop/ (raw) */
  topic: string;
  /** a JSON value, or raw text with its own content type */
  body: BodyCase;
  /** header overrides: undefined leaves one out; the defaults are the signed shop's, a fresh webhook id, the HMAC */
  headers?: Record<string, string | undefined>;
  shop?: { domain: string; projectId: string };
  method?: string;
  label: string;
}

/** Sends one delivery and records it when the answer is a 5xx, or a 4xx (but 404) without an `error` string. */
function deliver(d: Delivery, failures: FuzzFailure[]): Promise<request.Response | null> {
  const shop = d.shop ?? signedShop;
  const raw = caseText(d.body);
  const headers: Record<string, string | undefined> = {
    "content-type": caseContentType(d.body),
    "x-shop-shop-domain": shop.domain,
    "x-project-id": shop.projectId,
    "x-shop-webhook-id": randomUUID(),
    "x-shop-hmac-sha256": signShopBody(raw, SECRET),
    ...d.headers,
  };
  const method = d.method ?? "post";
  const url = `/webhooks/shop/${d.topic}`;
  const r = request(base)[method as "post"](url);
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) r.set(k, v);
  const label = `${method.toUpperCase()} ${url.slice(0, 80)} ${d.label}`;
  return judgeCase(label, r.send(raw), (res) => jsonAnswerProblem(res, { allow404: true }), failures);
}

const json = (value: unknown, label = "real payload"): BodyCase => ({ label, json: value });

describe("POST /webhooks/shop/:topic: every bad input has an answer below 500", () => {
  it("covers every public route shop-ingest serves", () => {
    const served = [...listExpressRoutes(h.app), ...SHOP_WEBHOOK_ROUTES].sort();
    const fuzzed = shopOps()
      .map((o) => `${o.method.toUpperCase()} ${o.path.replace(/\{(\w+)\}/g, ":$1")}`)
      .sort();
    expect(fuzzed).toEqual(served);
  });

  it("the platform's own payloads are stored, signed (200)", async () => {
    const failures: FuzzFailure[] = [];
    for (const topic of TOPICS) {
      const res = await deliver({ topic, body: json(payload(topic)), label: "real" }, failures);
      expect({ topic, status: res?.status }).toEqual({ topic, status: 200 });
    }
    expect(failures).toEqual([]);
  });

  // A route added to the document gets these cases at least: each path parameter bad in turn, each query parameter
  // bad in turn and repeated, each body case of its schema and each odd whole body, all correctly signed.
  it.each(shopOps().map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s: bad path, query and body values",
    async (_name, op) => {
      const failures: FuzzFailure[] = [];
      const real = json(payload("order/create"));
      const topics = [
        randomUUID(),
        ...BAD_PATH_SEGMENTS,
        "orders/create",
        "ORDER/CREATE",
        "order%2Fcreate",
        "order/create/",
        "order//create",
        "order/create/extra",
        "order/delete",
        "",
        "%2F",
        "order/create%00",
      ];
      const topicPath = (v: string) => op.path.replace(/^\/webhooks\/shop\//, "").replace("{topic}", v);
      for (const v of topics)
        await deliver({ topic: topicPath(v), body: real, label: `topic=${v.slice(0, 40)}` }, failures);
      const url = topicPath("order/create");
      for (const q of [...op.query, "unknown_param"])
        for (const v of BAD_QUERY_VALUES) {
          await deliver(
            { topic: `${url}?${q}=${v}`, body: real, label: `?${q}=${v.slice(0, 20)}` },
            failures,
          );
          await deliver({ topic: `${url}?${q}=${v}&${q}=2`, body: real, label: `?${q} twice` }, failures);
        }
      for (const c of [...(op.body ? bodyCases(op.body) : []), ...RAW_BODIES])
        for (const topic of TOPICS) await deliver({ topic, body: c, label: c.label }, failures);
      for (const method of ["get", "put", "delete", "patch"])
        await deliver({ topic: url, body: real, method, label: "another method" }, failures);
      expect(failures).toEqual([]);
    },
  );

  it.each(TOPICS.map((t) => [t]))(
    "%s: the platform's payload, signed, with each field bad in turn",
    async (topic) => {
      const failures: FuzzFailure[] = [];
      // the real payload (a schema that is exactly it), each field bad in turn
      const cases = bodyCases({ const: payload(topic) });
      // 8 in flight, as the platform sends (and the receiver stores them together)
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let c = cases.shift(); c; c = cases.shift())
            await deliver({ topic, body: c, label: c.label }, failures);
        }),
      );
      expect(failures).toEqual([]);
    },
  );

  it("numbers past what PostgreSQL's jsonb holds, alone and among good deliveries stored together", async () => {
    const failures: FuzzFailure[] = [];
    const cart = JSON.stringify(payload("cart/update"));
    const withNumber = (n: string, field = "x") => `${cart.slice(0, -1)},"${field}":${n}}`;
    const numbers = [
      "1e1000000",
      "-1e1000000",
      "1e-1000000",
      "1e131072",
      "1e400",
      "1e309",
      "1e308",
      `0.${"0".repeat(17_000)}1`,
      `1${"0".repeat(200)}`,
      "1E+0000000000000000000000000000000000000000000000400",
    ];
    const raw = (text: string): BodyCase => ({
      label: text.slice(-40),
      raw: { text, contentType: "application/json" },
    });
    for (const n of numbers)
      await deliver(
        { topic: "cart/update", body: raw(withNumber(n)), label: `x: ${n.slice(0, 30)}` },
        failures,
      );
    for (const field of ["note", "total_price", "line_items"])
      await deliver(
        { topic: "cart/update", body: raw(withNumber("1e1000000", field)), label: `${field}: 1e1000000` },
        failures,
      );
    // a string that reads like one is only a string
    await deliver(
      { topic: "cart/update", body: raw(withNumber('"1e1000000"', "note")), label: "note: '1e1000000'" },
      failures,
    );
    // stored in one statement with the deliveries that arrive meanwhile: one bad number must not fail them
    const answers = await Promise.all(
      ["1", "1e1000000", "2", "3", "1e-1000000", "4"].map((n) =>
        deliver({ topic: "cart/update", body: raw(withNumber(n)), label: `together x: ${n}` }, failures),
      ),
    );
    expect(answers.map((r) => r?.status)).toEqual([200, 400, 200, 200, 400, 200]);
    expect(failures).toEqual([]);
  });

  it("bad, missing and forged signatures", async () => {
    const failures: FuzzFailure[] = [];
    const body = JSON.stringify(payload("cart/update"));
    const digest = createHash("sha256").update(body).digest();
    const sig = signShopBody(body, SECRET);
    const signatures: (string | undefined)[] = [
      undefined,
      "",
      " ",
      "not base64 at all",
      signShopBody(body, "another-secret-0123456789"),
      signShopBody(`${body}\n`, SECRET),
      signShopBody(body, SECRET.toUpperCase()),
      sig.toLowerCase(),
      ` ${sig} `,
      `${sig}, ${sig}`,
      sig.slice(0, -2),
      `${sig}AAAA`,
      digest.toString("base64"), // a plain SHA-256, no key
      createHash("sha256")
        .update(SECRET + body)
        .digest("hex"),
      Buffer.alloc(31).toString("base64"),
      Buffer.alloc(32).toString("base64"),
      Buffer.alloc(33).toString("base64"),
      Buffer.from(sig, "base64").toString("base64url"),
      "=".repeat(44),
      "A".repeat(8_000),
      "\u00ff".repeat(44),
      "sha256=" + sig,
    ];
    for (const s of signatures)
      await deliver(
        {
          topic: "cart/update",
          body: { label: "cart", raw: { text: body, contentType: "application/json" } },
          headers: { "x-shop-hmac-sha256": s },
          label: `signature ${JSON.stringify(s?.slice(0, 30))}`,
        },
        failures,
      );
    // a shop without a secret takes any signature, and none
    for (const s of [undefined, "", "garbage"])
      await deliver(
        {
          topic: "cart/update",
          body: json(payload("cart/update")),
          shop: openShop,
          headers: { "x-shop-hmac-sha256": s },
          label: `no secret, signature ${JSON.stringify(s)}`,
        },
        failures,
      );
    expect(failures).toEqual([]);
  });

  it("bad shop domain, project id and webhook id headers", async () => {
    const failures: FuzzFailure[] = [];
    const body = json(payload("cart/update"));
    const odd = ["", " ", "-1", "null", "'; DROP TABLE shops; --", "%00", "\u00ff\u00fe", "x".repeat(3_000)];
    const headerCases: [string, string | undefined][] = [
      ...[undefined, ...odd, signedShop.domain.toUpperCase(), ` ${signedShop.domain} `, openShop.domain].map(
        (v): [string, string | undefined] => ["x-shop-shop-domain", v],
      ),
      ...[
        undefined,
        ...odd,
        "not-a-uuid",
        randomUUID(),
        "00000000-0000-0000-0000-000000000000",
        signedShop.projectId.toUpperCase(),
        openShop.projectId,
        `${signedShop.projectId},${signedShop.projectId}`,
      ].map((v): [string, string | undefined] => ["x-project-id", v]),
      ...[undefined, ...odd, "a".repeat(255), "a".repeat(256)].map((v): [string, string | undefined] => [
        "x-shop-webhook-id",
        v,
      ]),
      ["x-request-id", "x".repeat(3_000)],
      ["content-length", "99999999999"],
    ];
    for (const [name, value] of headerCases)
      await deliver(
        {
          topic: "cart/update",
          body,
          headers: { [name]: value },
          label: `${name}: ${JSON.stringify(value?.slice(0, 30))}`,
        },
        failures,
      );
    // the same webhook id again: a duplicate (409)
    const id = randomUUID();
    for (const label of ["first", "again"])
      await deliver({ topic: "cart/update", body, headers: { "x-shop-webhook-id": id }, label }, failures);
    expect(failures).toEqual([]);
  });

  it("the right payload under the wrong content type or encoding", async () => {
    const failures: FuzzFailure[] = [];
    const text = JSON.stringify(payload("order/create"));
    const bodies: [string, string | Buffer, Record<string, string>][] = [
      ...[
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/json; charset=utf-16",
        "application/json; charset=latin1",
        "application/xml",
        "",
        "*/*",
        "application/json; boundary",
      ].map((t): [string, string, Record<string, string>] => [
        `Content-Type ${t}`,
        text,
        { "content-type": t },
      ]),
      ["gzip, declared", gzipSync(text), { "content-encoding": "gzip" }],
      ["gzip, undeclared", gzipSync(text), {}],
      ["identity, declared", text, { "content-encoding": "identity" }],
      ["UTF-16 bytes", Buffer.from(text, "utf16le"), { "content-type": "application/json; charset=utf-16" }],
      ["a byte-order mark", `\ufeff${text}`, {}],
    ];
    for (const [label, raw, headers] of bodies)
      await deliver(
        {
          topic: "order/create",
          body: {
            label,
            raw: { text: raw as string, contentType: headers["content-type"] ?? "application/json" },
          },
          headers: { ...headers, "x-shop-hmac-sha256": signShopBody(raw, SECRET) },
          label,
        },
        failures,
      );
    expect(failures).toEqual([]);
  });

  it("every delivery it accepted is applied by the topic consumers", async () => {
    const open = async () =>
      (
        await h.deps.db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM shop_webhook_events e JOIN shop_connections s ON s.id = e.shop_id
            WHERE s.shop_domain IN ($1, $2) AND e.processed_at IS NULL`,
          [signedShop.domain, openShop.domain],
        )
      ).rows[0]!.n;
    await waitFor(async () => (await open()) === 0, 30_000, "every accepted delivery to be applied");
  });
});
