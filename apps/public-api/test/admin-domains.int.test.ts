// The dashboard's Domains and senders page at the admin API (issue 45). Real: public-api (the harness's internal
// app), domain-service as a child process on its internal port (DOMAIN_SERVICE_URL, the internal token), the
// provider simulator standing in for SES (its control API plays the DNS and the link being done), PostgreSQL,
// Redis, the audit log. DMARC is looked up in real DNS, where *.test has none: that record stays pending.
import path from "node:path";
import request from "supertest";
import { createInternalApp } from "../src/app";
import { type DomainServiceStack, startDomainService } from "@emailsvc/testing";
import { type Harness, INTERNAL_TOKEN, startHarness, testEnv, withInternalToken } from "./helpers";

jest.setTimeout(60_000);

const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
const run = Date.now().toString(36);
let ds: DomainServiceStack;
let h: Harness;

beforeAll(async () => {
  ds = await startDomainService({ root: path.resolve(__dirname, "../../.."), internalToken: INTERNAL_TOKEN });
  h = await startHarness(testEnv({ DOMAIN_SERVICE_URL: ds.url }));
});
afterAll(async () => {
  await h?.close();
  await ds?.stop();
});

const admin = () => request(h.internal);
async function createProject(name: string) {
  const res = await admin().post("/admin/projects").set(ADMIN).send({ name });
  expect(res.status).toBe(201);
  return res.body.project.id as string;
}

describe("domains through the admin API", () => {
  it("registers a domain, shows its 7 records, verifies it with each record's state, lists it, deletes it", async () => {
    const projectId = await createProject(`domains ${run}`);
    const domain = `shop-${run}.test`;
    const base = `/admin/projects/${projectId}/domains`;

    const empty = await admin().get(base).set(ADMIN);
    expect(empty.body).toEqual({ success: true, domains: [] });

    const reg = await admin()
      .post(base)
      .set(ADMIN)
      .send({ domain, sender_name: "Shop", sender_email: `hello@${domain}` });
    expect(reg.status).toBe(201);
    expect(reg.body.domain).toBe(domain);
    expect(
      reg.body.dns_records.map((r: { type: string; purpose: string }) => `${r.type} ${r.purpose}`),
    ).toEqual([
      "TXT ses_verification",
      "CNAME dkim",
      "CNAME dkim",
      "CNAME dkim",
      "TXT spf",
      "TXT dmarc",
      "CNAME return_path",
    ]);

    const listed = await admin().get(base).set(ADMIN);
    expect(listed.body.domains).toEqual([
      {
        domain,
        status: "pending",
        can_send: false,
        verification: { domain_verified: false, dkim_verified: false, mail_from_verified: false },
        dns_records_summary: { total: 7, verified: 0 },
        sender: { sender_name: "Shop", sender_email: `hello@${domain}` },
        last_verified_at: null,
        created_at: expect.any(String),
      },
    ]);

    const records = await admin().get(`${base}/${domain}/dns-records`).set(ADMIN);
    expect(records.status).toBe(200);
    expect(records.body.dns_records).toHaveLength(7);
    expect(records.body.dns_records.every((r: { verified: unknown }) => r.verified === null)).toBe(true);

    const before = await admin().post(`${base}/${domain}/verify`).set(ADMIN);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ can_send: false, verification: { domain_verified: false } });

    await ds.verifyIdentity(domain);
    const after = await admin().post(`${base}/${domain}/verify`).set(ADMIN);
    expect(after.body).toMatchObject({
      success: true,
      can_send: true,
      verification: { domain_verified: true, dkim_verified: true },
    });
    const states = (await admin().get(`${base}/${domain}/dns-records`).set(ADMIN)).body.dns_records as {
      purpose: string;
      verified: boolean | null;
    }[];
    // DMARC is the one the provider does not check; DNS has none for a .test domain
    expect(states.map((r) => [r.purpose, r.verified])).toEqual([
      ["ses_verification", true],
      ["dkim", true],
      ["dkim", true],
      ["dkim", true],
      ["spf", true],
      ["dmarc", null],
      ["return_path", true],
    ]);
    const status = await admin().get(`${base}/${domain}/status`).set(ADMIN);
    expect(status.body).toMatchObject({
      status: "verified",
      can_send: true,
      dns_records_summary: { total: 7, verified: 6, pending: 1, failed: 0 },
    });
    expect((await admin().get(base).set(ADMIN)).body.domains[0]).toMatchObject({
      status: "verified",
      can_send: true,
      dns_records_summary: { total: 7, verified: 6 },
      last_verified_at: expect.any(String),
    });

    // another project does not see it, through the admin API either
    const other = await createProject(`other ${run}`);
    const foreign = await admin().get(`/admin/projects/${other}/domains/${domain}/status`).set(ADMIN);
    expect(foreign.status).toBe(404);
    expect(foreign.body.success).toBe(false);

    const del = await admin().delete(`${base}/${domain}`).set(ADMIN);
    expect(del.status).toBe(200);
    expect((await admin().get(base).set(ADMIN)).body.domains).toEqual([]);
    expect((await admin().get(`${base}/${domain}/status`).set(ADMIN)).status).toBe(404);
  });

  it("passes domain-service's refusals on in its words, and checks the body's shape itself", async () => {
    const projectId = await createProject(`refusals ${run}`);
    const base = `/admin/projects/${projectId}/domains`;
    const bad = await admin()
      .post(base)
      .set(ADMIN)
      .send({ domain: "not a domain", sender_name: "S", sender_email: "a@b.test" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: "Invalid domain format" });
    const missing = await admin().post(base).set(ADMIN).send({ domain: "x.test" });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/sender_name/);
    expect((await admin().get(`/admin/projects/${crypto.randomUUID()}/domains`).set(ADMIN)).status).toBe(404);
  });

  it("answers 503 in words when DOMAIN_SERVICE_URL is not set; the lists still read", async () => {
    const projectId = await createProject(`no ds ${run}`);
    const app = withInternalToken(createInternalApp({ ...h.deps, domainService: null }), INTERNAL_TOKEN);
    const res = await request(app)
      .post(`/admin/projects/${projectId}/domains`)
      .set(ADMIN)
      .send({ domain: "x.test", sender_name: "S", sender_email: "a@x.test" });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe(
      "Domains cannot be changed or checked here: DOMAIN_SERVICE_URL is not set on public-api",
    );
    expect((await request(app).get(`/admin/projects/${projectId}/domains`).set(ADMIN)).status).toBe(200);
  });
});

describe("single sender addresses through the admin API", () => {
  it("starts a verification, resends it, sees it verified once the link is followed, deletes it", async () => {
    const projectId = await createProject(`addresses ${run}`);
    const email = `ops-${run}@mailbox.test`;
    const base = `/admin/projects/${projectId}/sender-addresses`;
    expect((await admin().get(base).set(ADMIN)).body).toEqual({ success: true, addresses: [] });

    const started = await admin().post(base).set(ADMIN).send({ sender_email: email, sender_name: "Ops" });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ sender_email: email, verification_status: "pending" });
    const listed = (await admin().get(base).set(ADMIN)).body.addresses;
    expect(listed).toEqual([
      {
        sender_email: email,
        sender_name: "Ops",
        verification_status: "pending",
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);

    const resent = await admin()
      .post(`${base}/${encodeURIComponent(email)}/resend`)
      .set(ADMIN);
    expect(resent.status).toBe(200);
    expect(resent.body.message).toBe(`Verification email sent again to ${email}`);

    const pending = await admin()
      .get(`${base}/${encodeURIComponent(email)}/status`)
      .set(ADMIN);
    expect(pending.body).toMatchObject({ verification_status: "pending", can_send: false });
    await ds.verifyIdentity(email);
    const verified = await admin()
      .get(`${base}/${encodeURIComponent(email)}/status`)
      .set(ADMIN);
    expect(verified.body).toMatchObject({ verification_status: "verified", can_send: true });
    expect((await admin().get(base).set(ADMIN)).body.addresses[0].verification_status).toBe("verified");

    const del = await admin()
      .delete(`${base}/${encodeURIComponent(email)}`)
      .set(ADMIN);
    expect(del.status).toBe(200);
    expect((await admin().get(base).set(ADMIN)).body.addresses).toEqual([]);
    const gone = await admin()
      .post(`${base}/${encodeURIComponent(email)}/resend`)
      .set(ADMIN);
    expect(gone.status).toBe(404);
  });
});

describe("the audit log", () => {
  it("records each change with the domain and the address out of the action's name", async () => {
    const projectId = await createProject(`audit domains ${run}`);
    const domain = `audited-${run}.test`;
    const email = `audited-${run}@mailbox.test`;
    const p = `/admin/projects/${projectId}`;
    await admin()
      .post(`${p}/domains`)
      .set(ADMIN)
      .send({ domain, sender_name: "A", sender_email: `a@${domain}` });
    await admin().post(`${p}/domains/${domain}/verify`).set(ADMIN);
    await admin().delete(`${p}/domains/${domain}`).set(ADMIN);
    await admin().post(`${p}/sender-addresses`).set(ADMIN).send({ sender_email: email, sender_name: "A" });
    await admin()
      .post(`${p}/sender-addresses/${encodeURIComponent(email)}/resend`)
      .set(ADMIN);
    await admin()
      .delete(`${p}/sender-addresses/${encodeURIComponent(email)}`)
      .set(ADMIN);
    await new Promise((r) => setTimeout(r, 300));
    const log = await admin().get(`${p}/audit-events`).set(ADMIN);
    expect(log.status).toBe(200);
    const seen = (log.body.events as { action: string; route: string; status: number }[])
      .map((e) => `${e.action} | ${e.route} | ${e.status}`)
      .sort();
    expect(seen).toEqual(
      [
        "domains.create | POST /admin/projects/:id/domains | 201",
        "domains.verify | POST /admin/projects/:id/domains/:domain/verify | 200",
        "domains.delete | DELETE /admin/projects/:id/domains/:domain | 200",
        "sender-addresses.create | POST /admin/projects/:id/sender-addresses | 201",
        "sender-addresses.resend | POST /admin/projects/:id/sender-addresses/:email/resend | 200",
        "sender-addresses.delete | DELETE /admin/projects/:id/sender-addresses/:email | 200",
      ].sort(),
    );
  });
});
