// Bad input on every route domain-service serves, derived from the public OpenAPI document's schemas
// (@emailsvc/testing's fuzz cases), sent with a valid key, and each route with malformed keys. Every answer must be
// below 500 (each input a client can send has a defined answer) and a 4xx must say what was wrong.
import { randomBytes, randomUUID } from "node:crypto";
import request from "supertest";
import { messagingTopology, publicOpenApi } from "@emailsvc/contracts";
import { createDb, createProject, findApiKey } from "@emailsvc/db";
import { listExpressRoutes } from "@emailsvc/http";
import { createBroker } from "@emailsvc/messaging";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { createSesClient } from "@emailsvc/provider";
import { createSimulator, type Simulator } from "@emailsvc/provider-simulator";
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
  jsonAnswerProblem,
  type FuzzFailure,
  MALFORMED_AUTH,
} from "@emailsvc/testing";
import { createApp } from "../src/app";
import type { Deps } from "../src/deps";
import { sesIdentityProvider } from "../src/identities/provider-port";

jest.setTimeout(120_000);

const db = createDb(process.env.DATABASE_URL!, { max: 10 });
const logger = createLogger({
  service: "ds-fuzz",
  level: (process.env.TEST_LOG_LEVEL ?? "silent") as "silent",
});
const broker = createBroker({
  url: process.env.RABBITMQ_URL!,
  name: "ds-fuzz",
  topology: messagingTopology,
  logger,
});
// Names of this run: a provider identity is one per account, and the package's database outlives a run.
const RUN = randomUUID().slice(0, 8);
const DOMAIN = `fz-${RUN}.test`;
const EMAIL = `sender@fz-mail-${RUN}.test`;
/** In a body, replaced per request by a new label: each plausible registration is of a name not taken yet. */
const FRESH = "FRESH";

let sim: Simulator;
let app: ReturnType<typeof createApp>;
let auth: Record<string, string>;

beforeAll(async () => {
  sim = createSimulator({ port: 0 });
  const ses = createSesClient({
    region: "us-east-1",
    endpoint: await sim.start(),
    accessKeyId: "x",
    secretAccessKey: "x",
  });
  const deps: Deps = {
    name: "domain-service",
    logger,
    metrics: createMetrics("ds_fuzz"),
    db,
    broker,
    provider: sesIdentityProvider(ses, "us-east-1"),
    // no DMARC record anywhere: verify answers "not yet" for it
    resolveTxt: async (name) => {
      throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    },
    // the limits are off here (thousands of bad keys from one address); domains.int.test.ts tests them
    limits: { redis: { eval: async () => [0, 0] }, requestsPerMinute: 0, authFailures: 0, windowMs: 60_000 },
    lookupApiKey: async (k) => {
      const f = await findApiKey(db, k);
      return f ? { projectId: f.projectId, keyId: f.keyId } : null;
    },
  };
  app = createApp(deps);
  const p = await createProject(db, { name: "fuzz" }, randomBytes(32).toString("hex"));
  auth = { Authorization: `Bearer ${p.liveKey}` };
});
afterAll(async () => {
  await sim?.stop();
  await broker.close();
  await db.close();
});

// Each route's cases start from the real domain and address (DELETE cases remove them): both exist again first.
beforeEach(async () => {
  const reg = await request(app)
    .post("/domains/register")
    .set(auth)
    .send({ domain: DOMAIN, sender_name: "Fuzz", sender_email: `hi@${DOMAIN}` });
  expect([201, 409]).toContain(reg.status);
  const ver = await request(app)
    .post("/domains/verify-email")
    .set(auth)
    .send({ sender_email: EMAIL, sender_name: "Fuzz" });
  expect([201, 409]).toContain(ver.status);
});

type Op = FuzzOp;

const domainOps = () => operationsOf(publicOpenApi(), (_path, op) => op["x-service"] === "domain-service");

/**
 * Names a client may mean as a domain or an address, beside the shared bad values: every form parseDomain and
 * normalizeEmail take apart (IDN, punycode that does not decode, empty and over-long labels, trailing dots, an IP
 * literal). Sent as each path and query parameter and as each string field of a body.
 */
const ODD_NAMES: readonly string[] = [
  "bücher.test",
  "xn--zz.test",
  "xn--bcher-kva.test.",
  "a..b.test",
  "-a.test",
  `${"a".repeat(64)}.test`,
  `${"a.".repeat(126)}test`,
  "127.0.0.1",
  "localhost",
  "ü@bücher.test",
  "a@xn--zz.test",
  '"a b"@x.test',
  "a@[127.0.0.1]",
  `${"x".repeat(65)}@x.test`,
  "a@b@x.test",
  "A@X.TEST.",
];

/** The real value of a path or query parameter. */
const REAL: Record<string, string> = { domain: DOMAIN, email: EMAIL };

/**
 * A valid body per operation, so that each bad field meets its own check, not the first field's. Spread over the
 * schema's sample: a property the document adds is fuzzed too.
 */
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  "POST /domains/register": {
    domain: `${FRESH}.${DOMAIN}`,
    sender_name: "Fuzz",
    sender_email: `hi@${FRESH}.${DOMAIN}`,
    external_key: `key-${FRESH}`,
  },
  "PUT /domains/{domain}/sender": {
    sender_name: "Fuzz",
    sender_email: `hi@${DOMAIN}`,
    reply_email: "reply@example.com",
  },
  "POST /domains/verify-email": {
    sender_email: `${FRESH}@fz-mail-${RUN}.test`,
    sender_name: "Fuzz",
    external_key: `key-${FRESH}`,
  },
  "POST /domains/verify-email/resend": { sender_email: EMAIL },
};

/** The valid body with each string field as each of ODD_NAMES in turn. */
const oddNameCases = (valid: Record<string, unknown>): BodyCase[] =>
  Object.keys(valid)
    .filter((k) => typeof valid[k] === "string")
    .flatMap((k) =>
      ODD_NAMES.map((v) => ({ label: `${k} = ${v.slice(0, 40)}`, json: { ...valid, [k]: v } })),
    );

let fresh = 0;

/** Sends one case; every 4xx of this service says what was wrong, its own 404 included. */
function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  c: BodyCase | null,
  failures: FuzzFailure[],
  label: string,
): Promise<unknown> {
  const r = request(app)[method as "post"](url).set(headers);
  const answer = c
    ? r
        .set("Content-Type", caseContentType(c))
        .send(c.raw ? caseText(c) : caseText(c).replaceAll(FRESH, `n${++fresh}`))
    : r;
  return judgeCase(
    `${method.toUpperCase()} ${url.slice(0, 120)} ${label}`,
    answer,
    (res) => jsonAnswerProblem(res),
    failures,
  );
}

/**
 * Every case for one operation: each path parameter bad in turn, each query parameter bad in turn and repeated
 * (the others real), an unknown parameter, each body case (from the valid body), and each malformed key.
 */
async function fuzzOp(op: Op): Promise<FuzzFailure[]> {
  const failures: FuzzFailure[] = [];
  const name = `${op.method.toUpperCase()} ${op.path}`;
  const fill = (over: Record<string, string> = {}) =>
    op.path.replace(/\{(\w+)\}/g, (_m, p: string) => over[p] ?? REAL[p]!);
  /** The query string: each parameter real but those in `over` (raw, as sent), then `extra`. */
  const query = (over: Record<string, string> = {}, extra: [string, string][] = []) => {
    const pairs = op.query.map((p): [string, string] => [p, over[p] ?? encodeURIComponent(REAL[p]!)]);
    const all = [...pairs, ...extra].map(([k, v]) => `${k}=${v}`);
    return all.length ? `?${all.join("&")}` : "";
  };
  const valid = op.body ? { ...(sample(op.body) as object), ...VALID_BODIES[name] } : null;
  const cases = op.body ? [...bodyCases(op.body, valid), ...oddNameCases(valid!)] : null;
  const plausible = cases?.[0] ?? null;
  for (const p of [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))
    for (const v of [randomUUID(), ...BAD_PATH_SEGMENTS, ...ODD_NAMES.map(encodeURIComponent)])
      await send(op.method, fill({ [p]: v }) + query(), auth, plausible, failures, `${p}=${v.slice(0, 40)}`);
  const url = fill();
  for (const v of [...BAD_QUERY_VALUES, ...ODD_NAMES.map(encodeURIComponent)]) {
    const label = `=${v.slice(0, 20)}`;
    for (const q of op.query) {
      await send(op.method, url + query({ [q]: v }), auth, plausible, failures, `?${q}${label}`);
      await send(
        op.method,
        url + query({ [q]: v }, [[q, "2"]]),
        auth,
        plausible,
        failures,
        `?${q}${label} twice`,
      );
    }
    await send(
      op.method,
      url + query({}, [["unknown_param", v]]),
      auth,
      plausible,
      failures,
      `?unknown${label}`,
    );
  }
  for (const c of cases ?? []) await send(op.method, url + query(), auth, c, failures, c.label);
  if (op.body) for (const c of RAW_BODIES) await send(op.method, url + query(), auth, c, failures, c.label);
  for (const a of MALFORMED_AUTH)
    await send(
      op.method,
      url + query(),
      a ? { Authorization: a } : {},
      plausible,
      failures,
      `auth=${a.slice(0, 20)}`,
    );
  // The same request several times at once (a client's retry, a double submit): one body, not a fresh name each.
  const once: BodyCase | null = plausible && {
    label: "plausible body",
    raw: {
      text: JSON.stringify(plausible.json).replaceAll(FRESH, `n${++fresh}`),
      contentType: "application/json",
    },
  };
  await Promise.all(
    Array.from({ length: 4 }, () => send(op.method, url + query(), auth, once, failures, "4 at once")),
  );
  return failures;
}

describe("domain-service routes: every bad input has an answer below 500", () => {
  it("covers every route domain-service serves", () => {
    const fuzzed = domainOps()
      .map((o) => `${o.method.toUpperCase()} ${o.path.replace(/\{(\w+)\}/g, ":$1")}`)
      .sort();
    expect(fuzzed).toEqual(listExpressRoutes(app));
    // and each valid body belongs to an operation that takes one
    const withBody = domainOps()
      .filter((o) => o.body)
      .map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(withBody).toEqual(expect.arrayContaining(Object.keys(VALID_BODIES)));
  });

  it.each(domainOps().map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s",
    async (_name, op) => {
      expect(await fuzzOp(op)).toEqual([]);
    },
  );
});
