// Bad input on every route public-api serves, public and admin: derived from the OpenAPI document's schemas
// (@emailsvc/testing's fuzz cases), sent with a valid key. Every answer must be below 500 (each input a client can
// send has a defined answer) and a 4xx must say what was wrong.
import { randomUUID } from "node:crypto";
import path from "node:path";
import request from "supertest";
import { publicOpenApi } from "@emailsvc/contracts";
import { listExpressRoutes } from "@emailsvc/http";
import { adminOpenApi } from "../src/admin/admin.openapi";
import {
  BAD_PATH_SEGMENTS,
  BAD_QUERY_VALUES,
  bodyCases,
  RAW_BODIES,
  type BodyCase,
  type Schema,
  operationsOf,
  type FuzzOp,
  caseContentType,
  caseText,
  judgeCase,
  jsonAnswerProblem,
  type FuzzFailure,
  MALFORMED_AUTH,
} from "@emailsvc/testing";
import type { Express } from "express";
import {
  bearer,
  INTERNAL_TOKEN,
  makeProject,
  startHarness,
  startS3,
  testEnv,
  type Harness,
  type TestProject,
} from "./helpers";
import { type DomainServiceStack, startDomainService } from "@emailsvc/testing";

jest.setTimeout(300_000);

const ADMIN = { "x-admin-token": "admin-token-for-tests-0123456789" };

let s3: Awaited<ReturnType<typeof startS3>>;
// the admin domain routes pass requests on to domain-service: the real one answers them here
let ds: DomainServiceStack;
let h: Harness;
let p: TestProject;
let leadId: string;
const leadEmail = "fuzz-lead@example.com";

beforeAll(async () => {
  // imports are stored in S3 before they are answered: s3rver stands in for it
  s3 = await startS3("imports");
  ds = await startDomainService({ root: path.resolve(__dirname, "../../.."), internalToken: INTERNAL_TOKEN });
  h = await startHarness(
    testEnv({ S3_ENDPOINT: s3.endpoint, IMPORTS_BUCKET: "imports", DOMAIN_SERVICE_URL: ds.url }),
  );
  p = await makeProject(h.deps, { verifiedSender: true });
  const lead = await request(h.app)
    .post("/v1/leads")
    .set(bearer(p.testKey))
    .send({ email: leadEmail, tags: ["fuzz"] });
  expect(lead.status).toBeLessThan(300);
  leadId = lead.body.lead?.id ?? lead.body.id;
});
afterAll(async () => {
  await h?.close();
  await s3?.close();
  await ds?.stop();
});

type Op = FuzzOp;

const publicOps = () =>
  operationsOf(
    publicOpenApi(),
    (path, op) => op["x-service"] === "public-api" && path !== "/docs" && path !== "/v1/openapi.json",
  );
const adminOps = () => operationsOf(adminOpenApi(), () => true);

/** Sends one case; a 4xx must name what was wrong (a 404 may be the router's own, for a path no route matches). */
function send(
  app: Express,
  method: string,
  url: string,
  headers: Record<string, string>,
  c: BodyCase | null,
  failures: FuzzFailure[],
  label: string,
): Promise<unknown> {
  const r = request(app)[method as "post"](url).set(headers);
  const answer = c ? r.set("Content-Type", caseContentType(c)).send(caseText(c)) : r;
  return judgeCase(
    `${method.toUpperCase()} ${url.slice(0, 120)} ${label}`,
    answer,
    (res) => jsonAnswerProblem(res, { allow404: true }),
    failures,
  );
}

/**
 * Every case for one operation: each path parameter bad in turn (the others real), each query parameter bad in
 * turn and repeated, each body case, and for `auth` routes each malformed key.
 */
async function fuzzOp(
  app: Express,
  op: Op,
  headers: Record<string, string>,
  real: (param: string) => string,
  keys: readonly string[] | null,
): Promise<FuzzFailure[]> {
  const failures: FuzzFailure[] = [];
  const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const fill = (over: Record<string, string> = {}) =>
    op.path.replace(/\{(\w+)\}/g, (_m, name: string) => over[name] ?? real(name));
  const plausible: BodyCase | null = op.body ? bodyCases(op.body)[0]! : null;
  for (const name of params)
    for (const v of [randomUUID(), ...BAD_PATH_SEGMENTS])
      await send(
        app,
        op.method,
        fill({ [name]: v }),
        headers,
        plausible,
        failures,
        `${name}=${v.slice(0, 40)}`,
      );
  const url = fill();
  for (const q of [...op.query, "unknown_param"])
    for (const v of BAD_QUERY_VALUES) {
      await send(app, op.method, `${url}?${q}=${v}`, headers, plausible, failures, `?${q}=${v.slice(0, 20)}`);
      await send(app, op.method, `${url}?${q}=${v}&${q}=2`, headers, plausible, failures, `?${q} twice`);
    }
  if (op.body) {
    for (const c of bodyCases(op.body)) await send(app, op.method, url, headers, c, failures, c.label);
    for (const c of RAW_BODIES) await send(app, op.method, url, headers, c, failures, c.label);
  }
  for (const a of keys ?? []) {
    const { Authorization: _drop, ...rest } = headers;
    await send(
      app,
      op.method,
      url,
      a ? { ...rest, Authorization: a } : rest,
      plausible,
      failures,
      `auth=${a.slice(0, 20)}`,
    );
  }
  return failures;
}

describe("public routes: every bad input has an answer below 500", () => {
  it("covers every public route public-api serves", () => {
    const served = listExpressRoutes(h.app).filter((r) => r !== "GET /docs" && r !== "GET /v1/openapi.json");
    const fuzzed = publicOps()
      .map((o) => `${o.method.toUpperCase()} ${o.path.replace(/\{(\w+)\}/g, ":$1")}`)
      .sort();
    expect(fuzzed).toEqual(served);
  });

  it.each(publicOps().map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s",
    async (_name, op) => {
      const real = (param: string) => (param === "email" ? encodeURIComponent(leadEmail) : leadId);
      expect(await fuzzOp(h.app, op, bearer(p.testKey), real, MALFORMED_AUTH)).toEqual([]);
    },
  );
});

describe("admin routes: every bad input has an answer below 500", () => {
  it.each(adminOps().map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s",
    async (_name, op) => {
      const real = (param: string) =>
        param === "projectId" ? p.projectId : param === "mode" ? "test" : randomUUID();
      expect(await fuzzOp(h.internal, op, ADMIN, real, null)).toEqual([]);
    },
  );
});

describe("internal routes: every bad input has an answer below 500", () => {
  const sendEmail: Schema = {
    type: "object",
    properties: {
      recipient: { type: "string", format: "email" },
      sender: { type: "string", const: "shop@example.com" },
      senderName: { type: "string" },
      subject: { type: "string" },
      html: { type: "string" },
      text: { type: "string" },
      templateId: { type: "string", format: "uuid" },
      data: { type: "object", properties: { name: { type: "string" } } },
      email_type: { type: "string" },
      scheduled_at: { type: "string", format: "date-time" },
      attachments: {
        type: "array",
        items: { type: "object", properties: { filename: { type: "string" }, content: { type: "string" } } },
      },
    },
  };
  const ops: Op[] = [
    { method: "post", path: "/send-email", body: sendEmail, query: [] },
    {
      method: "post",
      path: "/trigger-job",
      body: { type: "object", properties: { jobId: { type: "string", format: "uuid" } } },
      query: [],
    },
  ];

  it.each(ops.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))("%s", async (_name, op) => {
    const sender = { ...sendEmail, properties: { ...sendEmail.properties, sender: { const: p.sender } } };
    const withSender = op.path === "/send-email" ? { ...op, body: sender } : op;
    const failures = await fuzzOp(h.internal, withSender, { "x-project-id": p.projectId }, () => "", null);
    // and without the project header, and with a bad one
    for (const id of ["", "not-a-uuid", randomUUID(), "%00"])
      failures.push(
        ...(await fuzzOp(
          h.internal,
          { ...withSender, body: undefined },
          { "x-project-id": id },
          () => "",
          null,
        )),
      );
    expect(failures).toEqual([]);
  });

  it("covers every internal route public-api serves, but /admin (its own document) and /dashboard (the app's pages)", () => {
    // /dashboard serves the dashboard's static files (and index.html for its deep links): pages, not an API
    const served = listExpressRoutes(h.internal).filter(
      (r) => !r.includes(" /admin") && !r.includes(" /dashboard"),
    );
    expect(served).toEqual(ops.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort());
  });
});
