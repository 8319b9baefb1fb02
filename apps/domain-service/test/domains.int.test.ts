/** Real PostgreSQL (own database) and the provider simulator in-process, driven through the real SES v2 SDK. */
import { randomBytes } from "node:crypto";
import request from "supertest";
import { messagingTopology, publicRoutesOf } from "@emailsvc/contracts";
import { listExpressRoutes } from "@emailsvc/http";
import { createDb, createProject, findApiKey } from "@emailsvc/db";
import { createBroker } from "@emailsvc/messaging";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { createSesClient } from "@emailsvc/provider";
import { createSimulator, type Simulator } from "@emailsvc/provider-simulator";
import { createRedis } from "@emailsvc/runtime";
import { createApp, createInternalApp } from "../src/app";
import type { Deps } from "../src/deps";
import { sesIdentityProvider } from "../src/identities/provider-port";

jest.setTimeout(30_000);
const encKey = randomBytes(32).toString("hex");
const db = createDb(process.env.DATABASE_URL!, { max: 10 });
const logger = createLogger({ service: "ds-test", level: "silent" });
const broker = createBroker({
  url: process.env.RABBITMQ_URL!,
  name: "ds-test",
  topology: messagingTopology,
  logger,
});
/** The DNS the tests publish TXT records in (the provider does not check DMARC; the service asks DNS). */
const txt = new Map<string, string[][]>();
let sim: Simulator;
let simUrl: string;
let app: ReturnType<typeof createApp>;
let deps: Deps;
const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0", logger, {
  purpose: "rate limits",
  failFast: true,
});

beforeAll(async () => {
  sim = createSimulator({ port: 0 });
  simUrl = await sim.start();
  const ses = createSesClient({
    region: "us-east-1",
    endpoint: simUrl,
    accessKeyId: "x",
    secretAccessKey: "x",
  });
  deps = {
    name: "domain-service",
    logger,
    metrics: createMetrics("ds"),
    db,
    broker,
    provider: sesIdentityProvider(ses, "us-east-1"),
    resolveTxt: async (name) => {
      const found = txt.get(name);
      if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      return found;
    },
    lookupApiKey: async (k) => {
      const f = await findApiKey(db, k);
      return f ? { projectId: f.projectId, keyId: f.keyId } : null;
    },
    limits: { redis, requestsPerMinute: 1000, authFailures: 0, windowMs: 60_000 },
  };
  app = createApp(deps);
});
afterAll(async () => {
  redis.disconnect();
  await sim.stop();
  await broker.close();
  await db.close();
});

/** POST /domains/verify-email with this auth header and body. */
const verifyEmail = (auth: Record<string, string>, body: Record<string, unknown>) =>
  request(app).post("/domains/verify-email").set(auth).send(body);
const register = (auth: Record<string, string>, body: Record<string, unknown>) =>
  request(app).post("/domains/register").set(auth).send(body);
const putSender = (auth: Record<string, string>, domain: string, body: Record<string, unknown>) =>
  request(app).put(`/domains/${domain}/sender`).set(auth).send(body);
const emailStatus = (auth: Record<string, string>, email: string) =>
  request(app).get("/domains/verify-email/status").query({ email }).set(auth);
const simPost = (path: string) => fetch(`${simUrl}${path}`, { method: "POST" });
async function project() {
  const p = await createProject(db, { name: "p" }, encKey);
  return { id: p.project.id, auth: { Authorization: `Bearer ${p.liveKey}` } };
}
/** The send path's check (spec 4.4), read from what this service wrote. */
async function senderAllowed(projectId: string, email: string) {
  const domain = email.split("@")[1]!;
  const r = await db.pool.query(
    `SELECT EXISTS (SELECT 1 FROM sender_profiles WHERE project_id = $1 AND sender_email = $2 AND email_verified AND active)
         OR EXISTS (SELECT 1 FROM domain_identities WHERE project_id = $1 AND domain = $3 AND status = 'verified' AND deleted_at IS NULL) AS ok`,
    [projectId, email, domain],
  );
  return r.rows[0].ok as boolean;
}

describe("domain life cycle", () => {
  it("register → records → verify before/after the provider verifies → status → sender → delete → register again", async () => {
    const p = await project();
    const reg = await register(p.auth, {
      domain: "acme.test",
      sender_name: "Acme",
      sender_email: "hello@acme.test",
    });
    expect(reg.status).toBe(201);
    expect(reg.body.success).toBe(true);
    expect(reg.body.domain).toBe("acme.test");
    const recs = reg.body.dns_records as { type: string; name: string; value: string; purpose: string }[];
    expect(recs.map((r) => `${r.type} ${r.purpose}`)).toEqual([
      "TXT ses_verification",
      "CNAME dkim",
      "CNAME dkim",
      "CNAME dkim",
      "TXT spf",
      "TXT dmarc",
      "CNAME return_path",
    ]);
    const identity = (await (await fetch(`${simUrl}/_sim/identities`)).json()) as {
      identities: { identity: string; dkimTokens: string[]; mailFromDomain?: string }[];
    };
    const simId = identity.identities.find((i) => i.identity === "acme.test")!;
    expect(recs.filter((r) => r.purpose === "dkim").map((r) => r.name)).toEqual(
      simId.dkimTokens.map((t) => `${t}._domainkey`),
    );
    expect(recs[4]!.value).toBe("v=spf1 include:amazonses.com ~all");
    expect(recs[5]!.value).toBe("v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@acme.test");
    expect(recs[6]).toMatchObject({ name: "bounce", value: "feedback-smtp.us-east-1.amazonses.com" });

    const records = await request(app).get("/domains/acme.test/dns-records").set(p.auth);
    expect(records.body.dns_records.every((r: { verified: unknown }) => r.verified === null)).toBe(true);

    const before = await request(app).post("/domains/acme.test/verify").set(p.auth);
    expect(before.body).toMatchObject({
      success: true,
      can_send: false,
      verification: { domain_verified: false, dkim_verified: false },
    });
    expect(await senderAllowed(p.id, "hello@acme.test")).toBe(false);

    await simPost("/_sim/identities/acme.test/verify");
    const after = await request(app).post("/domains/acme.test/verify").set(p.auth);
    expect(after.body).toMatchObject({
      success: true,
      domain: "acme.test",
      can_send: true,
      verification: { domain_verified: true, dkim_verified: true },
    });

    const status = await request(app).get("/domains/acme.test/status").set(p.auth);
    expect(status.body).toMatchObject({
      success: true,
      status: "verified",
      can_send: true,
      sender: { sender_name: "Acme", sender_email: "hello@acme.test" },
    });
    expect(status.body.dns_records_summary.total).toBe(7);
    // all but DMARC, which the provider does not check and DNS does not have yet
    expect(status.body.dns_records_summary).toMatchObject({ verified: 6, pending: 1, failed: 0 });
    txt.set("_dmarc.acme.test", [["v=DMARC1; p=quarantine; ", "rua=mailto:dmarc-reports@acme.test"]]);
    await request(app).post("/domains/acme.test/verify").set(p.auth);
    const full = await request(app).get("/domains/acme.test/status").set(p.auth);
    expect(full.body.dns_records_summary).toEqual({ total: 7, verified: 7, pending: 0, failed: 0 });
    expect(status.body.last_verified_at).toBeTruthy();
    expect(await senderAllowed(p.id, "anyone@acme.test")).toBe(true);

    const put = await putSender(p.auth, "acme.test", {
      sender_name: "Acme Team",
      sender_email: "team@acme.test",
      reply_email: "help@acme.test",
    });
    expect(put.body).toEqual({
      success: true,
      domain: "acme.test",
      sender: { sender_name: "Acme Team", sender_email: "team@acme.test", reply_email: "help@acme.test" },
    });
    const got = await request(app).get("/domains").query({ domain: "acme.test" }).set(p.auth);
    expect(got.body.domain).toMatchObject({
      domain: "acme.test",
      status: "verified",
      can_send: true,
      sender: { sender_email: "team@acme.test", reply_email: "help@acme.test" },
    });

    const del = await request(app).delete("/domains/acme.test").set(p.auth);
    expect(del.body).toMatchObject({ success: true, domain: "acme.test" });
    const simAfter = (await (await fetch(`${simUrl}/_sim/identities`)).json()) as {
      identities: { identity: string }[];
    };
    expect(simAfter.identities.some((i) => i.identity === "acme.test")).toBe(false);
    expect(await senderAllowed(p.id, "team@acme.test")).toBe(false);
    expect((await request(app).get("/domains/acme.test/status").set(p.auth)).status).toBe(404);
    const stored = await db.pool.query("SELECT deleted_at FROM domain_identities WHERE project_id = $1", [
      p.id,
    ]);
    expect(stored.rows[0].deleted_at).not.toBeNull();

    const again = await register(p.auth, {
      domain: "acme.test",
      sender_name: "Acme",
      sender_email: "hello@acme.test",
    });
    expect(again.status).toBe(201);
    expect(again.body.dns_records[1].name).not.toBe(recs[1]!.name); // fresh DKIM tokens
  });

  it("stores and shows internationalized domains consistently (Unicode or punycode in)", async () => {
    const p = await project();
    const reg = await register(p.auth, {
      domain: "Bücher.Test",
      sender_name: "B",
      sender_email: "info@bücher.test",
    });
    expect(reg.status).toBe(201);
    expect(reg.body.domain).toBe("bücher.test");
    expect(reg.body.dns_records[5].value).toBe(
      "v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@xn--bcher-kva.test",
    );
    const viaPuny = await request(app).get(`/domains/xn--bcher-kva.test/status`).set(p.auth);
    const viaUnicode = await request(app)
      .get(`/domains/${encodeURIComponent("bücher.test")}/status`)
      .set(p.auth);
    expect(viaPuny.body.domain).toBe("bücher.test");
    expect(viaUnicode.body.domain).toBe("bücher.test");
    const row = await db.pool.query(
      "SELECT domain, domain_unicode FROM domain_identities WHERE project_id = $1",
      [p.id],
    );
    expect(row.rows[0]).toEqual({ domain: "xn--bcher-kva.test", domain_unicode: "bücher.test" });
    const dup = await register(p.auth, {
      domain: "xn--bcher-kva.test",
      sender_name: "B",
      sender_email: "x@xn--bcher-kva.test",
    });
    expect(dup.status).toBe(409);
  });
});

describe("address life cycle", () => {
  it("verify-email → pending → provider verifies → verified → send allowed → delete → refused", async () => {
    const p = await project();
    const created = await verifyEmail(p.auth, { sender_email: "Me@Solo.test", sender_name: "Me" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      success: true,
      sender_email: "me@solo.test",
      verification_status: "pending",
      sender: {
        from_name: "Me",
        from_email: "me@solo.test",
        email_verified: false,
        domain_authenticated: false,
      },
    });
    expect(created.body.identity_id).toBeTruthy();
    expect(created.body.sender_profile_id).toBeTruthy();
    const verificationMail = (await (await fetch(`${simUrl}/_sim/messages?to=me@solo.test`)).json()) as {
      count: number;
    };
    expect(verificationMail.count).toBeGreaterThanOrEqual(1);

    const pending = await emailStatus(p.auth, "me@solo.test");
    expect(pending.body).toMatchObject({ verification_status: "pending", can_send: false });
    expect(await senderAllowed(p.id, "me@solo.test")).toBe(false);

    const resend = await request(app)
      .post("/domains/verify-email/resend")
      .set(p.auth)
      .send({ sender_email: "me@solo.test" });
    expect(resend.body).toMatchObject({ success: true, sender_email: "me@solo.test" });
    const mails = (await (await fetch(`${simUrl}/_sim/messages?to=me@solo.test`)).json()) as {
      count: number;
    };
    expect(mails.count).toBe(verificationMail.count + 1);

    await simPost("/_sim/identities/me@solo.test/verify");
    const verified = await emailStatus(p.auth, "me@solo.test");
    expect(verified.body).toMatchObject({
      success: true,
      verification_status: "verified",
      can_send: true,
      sender_profile: {
        id: created.body.sender_profile_id,
        from_email: "me@solo.test",
        email_verified: true,
      },
    });
    expect(await senderAllowed(p.id, "me@solo.test")).toBe(true);

    // Resending would recreate the provider's identity and undo the verification: refused, still verified.
    const again = await request(app)
      .post("/domains/verify-email/resend")
      .set(p.auth)
      .send({ sender_email: "me@solo.test" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      success: false,
      error: "me@solo.test is already verified; no email was sent",
    });
    expect(await senderAllowed(p.id, "me@solo.test")).toBe(true);

    const del = await request(app)
      .delete("/domains/verify-email")
      .query({ email: "me@solo.test" })
      .set(p.auth);
    expect(del.body).toMatchObject({ success: true, sender_email: "me@solo.test" });
    expect(await senderAllowed(p.id, "me@solo.test")).toBe(false);
  });

  it("marks failed when the provider says so", async () => {
    const p = await project();
    await verifyEmail(p.auth, { sender_email: "bad@solo2.test", sender_name: "B" });
    await simPost("/_sim/identities/bad@solo2.test/fail");
    const st = await emailStatus(p.auth, "bad@solo2.test");
    expect(st.body).toMatchObject({ verification_status: "failed", can_send: false });
  });
});

describe("errors of section 7 and tenancy", () => {
  it("needs the Bearer key on every /domains route", async () => {
    for (const [method, path] of [
      ["get", "/domains?domain=a.test"],
      ["post", "/domains/register"],
      ["get", "/domains/verify-email/status?email=a@b.c"],
      ["delete", "/domains/a.test"],
    ] as const) {
      const res = await request(app)[method](path);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: "Unauthorized: Invalid or missing API key" });
    }
    const bad = await request(app).get("/domains?domain=a.test").set("Authorization", "Bearer pk_nope");
    expect(bad.body.error).toBe("Invalid API key prefix. Expected sk_proj_*, sk_live_* or sk_test_*.");
  });

  it("answers every listed error", async () => {
    const p = await project();
    const reg = (b: Record<string, unknown>) => register(p.auth, b);
    expect((await reg({ domain: "x.test" })).status).toBe(400);
    expect((await reg({ domain: "not a domain", sender_name: "a", sender_email: "a@b.test" })).body).toEqual({
      success: false,
      error: "Invalid domain format",
    });
    expect((await reg({ domain: "x.test", sender_name: "a", sender_email: "a@other.test" })).status).toBe(
      400,
    );
    expect((await reg({ domain: "x.test", sender_name: "a", sender_email: "a@x.test" })).status).toBe(201);
    expect((await reg({ domain: "x.test", sender_name: "a", sender_email: "a@x.test" })).status).toBe(409);
    for (const path of ["/domains/nope.test/dns-records", "/domains/nope.test/status"])
      expect((await request(app).get(path).set(p.auth)).status).toBe(404);
    expect((await request(app).post("/domains/nope.test/verify").set(p.auth)).status).toBe(404);
    expect((await request(app).delete("/domains/nope.test").set(p.auth)).status).toBe(404);
    expect((await request(app).get("/domains").set(p.auth)).body).toEqual({
      success: false,
      error: "domain parameter is required",
    });
    expect((await request(app).get("/domains").query({ domain: "nope.test" }).set(p.auth)).status).toBe(404);
    expect((await putSender(p.auth, "x.test", { sender_name: "a" })).status).toBe(400);
    expect((await putSender(p.auth, "x.test", { sender_name: "a", sender_email: "a@y.test" })).status).toBe(
      400,
    );
    expect(
      (await putSender(p.auth, "nope.test", { sender_name: "a", sender_email: "a@nope.test" })).status,
    ).toBe(404);
    expect((await verifyEmail(p.auth, { sender_email: "a@b.test" })).body).toEqual({
      success: false,
      error: "sender_email and sender_name are required",
    });
    await verifyEmail(p.auth, { sender_email: "dup@b.test", sender_name: "D" });
    expect((await verifyEmail(p.auth, { sender_email: "dup@b.test", sender_name: "D" })).status).toBe(409);
    for (const method of ["get", "delete"] as const) {
      const path = method === "get" ? "/domains/verify-email/status" : "/domains/verify-email";
      expect((await request(app)[method](path).set(p.auth)).body).toEqual({
        success: false,
        error: "email query parameter is required",
      });
      expect((await request(app)[method](path).query({ email: "ghost@b.test" }).set(p.auth)).status).toBe(
        404,
      );
    }
  });

  // count 5: more than the SDK's own retries of a 500
  it("answers 500 on a provider error at registration and stores nothing; 502 on verify", async () => {
    const p = await project();
    await fetch(`${simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        fault: { count: 5, status: 500, errorType: "InternalFailure", message: "boom", operation: "any" },
      }),
    });
    const reg = await register(p.auth, {
      domain: "fail.test",
      sender_name: "F",
      sender_email: "f@fail.test",
    });
    expect(reg.status).toBe(500);
    expect(reg.body.success).toBe(false);
    expect(
      (await db.pool.query("SELECT 1 FROM domain_identities WHERE project_id = $1", [p.id])).rowCount,
    ).toBe(0);
    await register(p.auth, { domain: "ok.test", sender_name: "O", sender_email: "o@ok.test" });
    await fetch(`${simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        fault: { count: 5, status: 500, errorType: "InternalFailure", message: "boom", operation: "any" },
      }),
    });
    expect((await request(app).post("/domains/ok.test/verify").set(p.auth)).status).toBe(502);
    await fetch(`${simUrl}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ fault: null }),
    });
  });

  it("another project's key gets 404 for this project's domain and address", async () => {
    const a = await project();
    const b = await project();
    await register(a.auth, { domain: "mine.test", sender_name: "M", sender_email: "m@mine.test" });
    await verifyEmail(a.auth, { sender_email: "solo@mine2.test", sender_name: "S" });
    expect((await request(app).get("/domains/mine.test/status").set(b.auth)).status).toBe(404);
    expect((await request(app).get("/domains/mine.test/dns-records").set(b.auth)).status).toBe(404);
    expect((await request(app).delete("/domains/mine.test").set(b.auth)).status).toBe(404);
    expect((await emailStatus(b.auth, "solo@mine2.test")).status).toBe(404);
  });

  it("a domain or address another project registered is refused, and theirs keeps working", async () => {
    const a = await project();
    const b = await project();
    const reg = (auth: Record<string, string>, domain: string) =>
      register(auth, { domain, sender_name: "X", sender_email: `x@${domain}` });
    expect((await reg(a.auth, "owned.test")).status).toBe(201);
    await simPost("/_sim/identities/owned.test/verify");
    expect((await request(app).post("/domains/owned.test/verify").set(a.auth)).body.can_send).toBe(true);

    const taken = await reg(b.auth, "OWNED.test.");
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({
      success: false,
      error: "Domain owned.test is already registered by another project",
    });
    expect((await request(app).post("/domains/owned.test/verify").set(b.auth)).status).toBe(404);
    expect(await senderAllowed(b.id, "ceo@owned.test")).toBe(false);

    await verifyEmail(a.auth, { sender_email: "al@owned2.test", sender_name: "A" });
    await simPost("/_sim/identities/al@owned2.test/verify");
    const addr = await verifyEmail(b.auth, { sender_email: "AL@owned2.test", sender_name: "B" });
    expect(addr.status).toBe(409);
    expect(addr.body.error).toBe("al@owned2.test is already registered by another project");

    // a's domain and address are untouched at the provider
    expect((await request(app).post("/domains/owned.test/verify").set(a.auth)).body.can_send).toBe(true);
    const st = await emailStatus(a.auth, "al@owned2.test");
    expect(st.body).toMatchObject({ verification_status: "verified", can_send: true });
  });

  it("changing a domain's sender keeps an address verified on its own; deleting the domain follows spec 3", async () => {
    const p = await project();
    await verifyEmail(p.auth, { sender_email: "ops@four.test", sender_name: "Ops" });
    await simPost("/_sim/identities/ops@four.test/verify");
    await emailStatus(p.auth, "ops@four.test");
    expect(await senderAllowed(p.id, "ops@four.test")).toBe(true);

    await register(p.auth, { domain: "four.test", sender_name: "Four", sender_email: "ops@four.test" });
    const put = await putSender(p.auth, "four.test", { sender_name: "Hi", sender_email: "hi@four.test" });
    expect(put.status).toBe(200);
    expect(await senderAllowed(p.id, "ops@four.test")).toBe(true);
    const ops = await db.pool.query(
      "SELECT active, domain_id FROM sender_profiles WHERE project_id = $1 AND sender_email = $2",
      [p.id, "ops@four.test"],
    );
    expect(ops.rows[0]).toEqual({ active: true, domain_id: null });

    // Spec 3's domain table: DELETE /domains/:domain leaves the domain's sender profile deactivated.
    await putSender(p.auth, "four.test", { sender_name: "Ops", sender_email: "ops@four.test" });
    expect((await request(app).delete("/domains/four.test").set(p.auth)).status).toBe(200);
    expect(await senderAllowed(p.id, "ops@four.test")).toBe(false);
  });

  it("400 (never 500) for names the provider or MAIL FROM cannot take, unusable addresses and wrong types", async () => {
    const p = await project();
    // 247 characters: valid itself, but bounce.<domain> would pass DNS's 253
    const long = `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.test`.slice(-247);
    for (const domain of [long, "a.b"]) {
      const res = await register(p.auth, { domain, sender_name: "L", sender_email: `x@${domain}` });
      expect(res.body).toEqual({ success: false, error: "Invalid domain format" });
      expect(res.status).toBe(400);
    }
    for (const email of ["a@localhost", "a@1.2.3.4", "a@exa_mple.com"]) {
      const res = await verifyEmail(p.auth, { sender_email: email, sender_name: "A" });
      expect(res.body).toEqual({ success: false, error: "sender_email must be an email address" });
    }
    const nul = await request(app).get("/domains/verify-email/status?email=a%00b@x.test").set(p.auth);
    expect(nul.status).toBe(400);
    // refused for every route of every service before the handler (a NUL in any query value)
    expect(nul.body.error).toBe('Query parameter "email" must not contain NUL characters (\\u0000)');
    const key = await verifyEmail(p.auth, {
      sender_email: "k@keys.test",
      sender_name: "K",
      external_key: { x: 1 },
    });
    expect(key.body).toEqual({ success: false, error: "external_key must be a string" });
    await register(p.auth, { domain: "types.test", sender_name: "T", sender_email: "t@types.test" });
    const reply = await putSender(p.auth, "types.test", {
      sender_name: "T",
      sender_email: "t@types.test",
      reply_email: 123,
    });
    expect(reply.body).toEqual({ success: false, error: "reply_email must be a string" });
  });

  it("one sender whichever form of an internationalized address the client writes", async () => {
    const p = await project();
    const made = await verifyEmail(p.auth, { sender_email: "u@zürich-idn.test", sender_name: "U" });
    expect(made.status).toBe(201);
    expect(made.body.sender_email).toBe("u@xn--zrich-idn-q9a.test");
    await simPost("/_sim/identities/u@xn--zrich-idn-q9a.test/verify");
    const st = await emailStatus(p.auth, "U@zürich-idn.test");
    expect(st.body).toMatchObject({ verification_status: "verified", can_send: true });
    expect(await senderAllowed(p.id, "u@xn--zrich-idn-q9a.test")).toBe(true);
  });
});

describe("methods (spec 4.10)", () => {
  it("405 with Allow for another method on a known /domains path; OPTIONS 204", async () => {
    const p = await project();
    const cases: [string, "get" | "put" | "patch" | "post" | "delete", string][] = [
      ["/domains", "post", "GET"],
      ["/domains/register", "get", "POST"],
      ["/domains/register", "delete", "POST"],
      ["/domains/acme.test", "get", "DELETE"],
      ["/domains/acme.test/dns-records", "post", "GET"],
      ["/domains/acme.test/verify", "get", "POST"],
      ["/domains/acme.test/status", "delete", "GET"],
      ["/domains/acme.test/sender", "post", "PUT"],
      ["/domains/verify-email", "get", "POST, DELETE"],
      ["/domains/verify-email/status", "post", "GET"],
      ["/domains/verify-email/resend", "patch", "POST"],
    ];
    for (const [path, method, allow] of cases) {
      const res = await request(app)[method](path).set(p.auth).send({});
      expect({ path, method, status: res.status, allow: res.headers.allow, body: res.body }).toEqual({
        path,
        method,
        status: 405,
        allow,
        body: { success: false, error: "Method not allowed" },
      });
    }
    const options = await request(app).options("/domains/acme.test/status").set(p.auth);
    expect([options.status, options.headers.allow]).toEqual([204, "GET"]);
    // The routes themselves still answer, and an unknown path is still a 404.
    expect((await request(app).get("/domains/acme.test/status").set(p.auth)).status).toBe(404);
    expect((await request(app).get("/domains/acme.test/nothing").set(p.auth)).status).toBe(404);
  });
});

describe("route coverage against the public OpenAPI document", () => {
  it("serves exactly the routes the document lists under domain-service", () => {
    expect(listExpressRoutes(app)).toEqual(publicRoutesOf("domain-service"));
  });
});

describe("limits (issue 49)", () => {
  it("refuses a key past DOMAINS_RATE_LIMIT requests a minute: 429, Retry-After, RateLimit-*; per key", async () => {
    const limited = createApp({ ...deps, limits: { ...deps.limits, requestsPerMinute: 2 } });
    const a = await project();
    // GET /domains without ?domain= is a 400: answered, and counted, like any request
    const list = (auth: Record<string, string>) => request(limited).get("/domains").set(auth);
    const first = await list(a.auth);
    expect(first.status).toBe(400);
    expect(first.headers["ratelimit-limit"]).toBe("2");
    expect((await list(a.auth)).status).toBe(400);
    const over = await list(a.auth);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      success: false,
      error: "Rate limit exceeded: at most 2 requests per minute per API key",
    });
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    const b = await project();
    expect((await list(b.auth)).status).toBe(400);
  });

  it("refuses an address past its failed authentications before looking its key up", async () => {
    const guarded = createApp({ ...deps, limits: { ...deps.limits, authFailures: 2 } });
    const addr = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    const bad = () =>
      request(guarded)
        .get("/domains")
        .set({ Authorization: "Bearer sk_live_nosuchkey", "x-forwarded-for": addr });
    for (let i = 0; i < 3; i++) expect((await bad()).status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    const refused = await bad();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  });
});

describe("the internal port (public-api's admin API acting for a project)", () => {
  const TOKEN = "internal-token-for-domain-service-tests-0123";
  const internal = () => createInternalApp({ ...deps, internalToken: TOKEN });

  it("needs the internal token and a known project in x-project-id, then serves the same routes for it", async () => {
    const p = await project();
    const app2 = internal();
    expect((await request(app2).get("/domains").query({ domain: "x.test" })).status).toBe(401);
    // an API key opens nothing here: the port takes the internal token only
    expect((await request(app2).get("/domains").query({ domain: "x.test" }).set(p.auth)).status).toBe(401);
    const as = (projectId: string) => ({ "x-internal-token": TOKEN, "x-project-id": projectId });
    const noProject = await request(app2)
      .get("/domains")
      .query({ domain: "x.test" })
      .set({ "x-internal-token": TOKEN });
    expect(noProject.status).toBe(400);
    expect(noProject.body.error).toBe("x-project-id must be a project UUID");
    const unknown = await request(app2)
      .get("/domains/x.test/status")
      .set(as("00000000-0000-4000-8000-000000000000"));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("Project not found");

    const reg = await request(app2)
      .post("/domains/register")
      .set(as(p.id))
      .send({ domain: "internal-port.test", sender_name: "I", sender_email: "hi@internal-port.test" });
    expect(reg.status).toBe(201);
    expect(reg.body.dns_records).toHaveLength(7);
    // the project's own key sees the domain the internal caller registered for it
    const viaKey = await request(app).get("/domains/internal-port.test/dns-records").set(p.auth);
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.dns_records).toHaveLength(7);
    // and another project does not
    const other = await project();
    expect((await request(app2).get("/domains/internal-port.test/status").set(as(other.id))).status).toBe(
      404,
    );
  });

  it("refuses every call when no internal token is configured", async () => {
    const p = await project();
    const closed = createInternalApp({ ...deps, internalToken: undefined });
    const res = await request(closed)
      .get("/domains/x.test/status")
      .set({ "x-internal-token": "anything-at-all-0123456789abcdef", "x-project-id": p.id });
    expect(res.status).toBe(401);
  });
});
