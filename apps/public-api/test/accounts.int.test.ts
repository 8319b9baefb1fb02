// Issue 45: team accounts on the admin API. Real: PostgreSQL (users, sessions, members, the audit log and its
// append-only trigger), Redis (the sign-in throttle). Signed-in browsers are played by supertest with the cookie,
// the CSRF token and the Origin a browser would send.
import request from "supertest";
import { adminOpenApi } from "../src/admin/admin.openapi";
import { startHarness, testEnv, type Harness } from "./helpers";

let h: Harness;
const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
const HOST = "dash.test";
const ORIGIN = `http://${HOST}`;
const run = Date.now().toString(36);
const PASSWORD = "a long enough password";
// The sign-in throttle counts per client address in the Redis every test package shares: this file's failures
// come from an address of its own, so they never hold up another package's sign-ins (the dev stack's test).
const ADDR = {
  "x-forwarded-for": `203.0.113.${Math.floor(Math.random() * 250) + 1}, 198.51.100.${Math.floor(Math.random() * 250) + 1}`,
};

beforeAll(async () => {
  h = await startHarness(
    testEnv({ SIGN_IN_FAILURES_PER_ACCOUNT: "5", SIGN_IN_FAILURES_PER_ADDRESS: "1000" }),
  );
});
afterAll(async () => {
  await h?.close();
});

const admin = () => request(h.internal);
async function createUser(email: string, opts: { platformOwner?: boolean } = {}) {
  const res = await admin()
    .post("/admin/users")
    .set(ADMIN)
    .send({
      email,
      password: PASSWORD,
      name: email.split("@")[0],
      platform_owner: opts.platformOwner ?? false,
    });
  expect(res.status).toBe(201);
  return res.body.user as { id: string; email: string };
}
async function createProject(name: string) {
  const res = await admin().post("/admin/projects").set(ADMIN).send({ name });
  expect(res.status).toBe(201);
  return res.body.project.id as string;
}
async function addMember(projectId: string, email: string, role: string) {
  const res = await admin().put(`/admin/projects/${projectId}/members`).set(ADMIN).send({ email, role });
  expect(res.status).toBe(200);
}

/** A browser signed in as `email`: its cookie and CSRF token. */
async function signIn(email: string, password = PASSWORD) {
  const res = await admin()
    .post("/admin/auth/sign-in")
    .set({ ...ADDR, Host: HOST, Origin: ORIGIN })
    .send({ email, password });
  expect(res.status).toBe(200);
  const cookie = (res.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!;
  return { cookie, csrf: res.body.csrf_token as string, res };
}
type Browser = Awaited<ReturnType<typeof signIn>>;
const as = (b: Browser, extra: Record<string, string> = {}) => ({
  Cookie: b.cookie,
  Host: HOST,
  Origin: ORIGIN,
  "x-csrf-token": b.csrf,
  ...extra,
});

describe("signing in", () => {
  it("answers a wrong password and an unknown email alike; sets an HttpOnly, SameSite=Strict session cookie", async () => {
    const email = `owner-${run}@example.org`;
    await createUser(email);
    const wrong = await admin()
      .post("/admin/auth/sign-in")
      .set(ADDR)
      .send({ email, password: "not the password" });
    const unknown = await admin()
      .post("/admin/auth/sign-in")
      .set(ADDR)
      .send({ email: `nobody-${run}@example.org`, password: "not the password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ success: false, error: "Wrong email or password" });
    expect(unknown.body).toEqual(wrong.body);

    const b = await signIn(email.toUpperCase());
    const set = (b.res.headers["set-cookie"] as unknown as string[])[0]!;
    expect(set).toMatch(/^emailsvc_session=[A-Za-z0-9_-]{40,};/);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    expect(set).not.toMatch(/Secure/);
    expect(b.res.body.user).toMatchObject({ email, platform_owner: false });
    const me = await admin().get("/admin/auth/me").set(as(b));
    expect(me.body).toMatchObject({ success: true, user: { email }, csrf_token: b.csrf, memberships: [] });
    // behind TLS (the gateway says so) the cookie is Secure
    const tls = await admin()
      .post("/admin/auth/sign-in")
      .set({ ...ADDR, "x-forwarded-proto": "https" })
      .send({ email, password: PASSWORD });
    expect((tls.headers["set-cookie"] as unknown as string[])[0]).toMatch(/; Secure/);
  });

  it("throttles failures per account: past the limit even the right password waits (429)", async () => {
    const email = `throttled-${run}@example.org`;
    await createUser(email);
    for (let i = 0; i < 5; i++)
      expect(
        (await admin().post("/admin/auth/sign-in").set(ADDR).send({ email, password: "wrong" })).status,
      ).toBe(401);
    const refused = await admin().post("/admin/auth/sign-in").set(ADDR).send({ email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe("Too many failed sign-ins; try again in a few minutes");
  });

  it("signs out this browser, and everywhere", async () => {
    const email = `leaver-${run}@example.org`;
    await createUser(email);
    const a = await signIn(email);
    const b = await signIn(email);
    const out = await admin().post("/admin/auth/sign-out").set(as(a));
    expect(out.status).toBe(200);
    expect((await admin().get("/admin/auth/me").set(as(a))).status).toBe(401);
    expect((await admin().get("/admin/auth/me").set(as(b))).status).toBe(200);
    const c = await signIn(email);
    expect((await admin().post("/admin/auth/sign-out-everywhere").set(as(c))).body).toEqual({
      success: true,
      sessions_ended: 2,
    });
    expect((await admin().get("/admin/auth/me").set(as(b))).status).toBe(401);
  });
});

describe("an operator's password reset", () => {
  it("sets the new password and ends every session of the user; only for platform owners", async () => {
    const email = `reset-${run}@example.org`;
    await createUser(email);
    const b = await signIn(email);
    const reset = await admin()
      .put("/admin/users/password")
      .set(ADMIN)
      .send({ email, password: "another long password" });
    expect(reset.status).toBe(200);
    expect(reset.body.sessions_ended).toBe(1);
    expect((await admin().get("/admin/auth/me").set(as(b))).status).toBe(401);
    expect(
      (await admin().post("/admin/auth/sign-in").set(ADDR).send({ email, password: PASSWORD })).status,
    ).toBe(401);
    const again = await signIn(email, "another long password");
    // a user who is not a platform owner may not reset anyone's
    const denied = await admin()
      .put("/admin/users/password")
      .set(as(again))
      .send({ email, password: "a third long password" });
    expect(denied.status).toBe(403);
  });
});

describe("changes from a signed-in browser", () => {
  it("need the CSRF token and the dashboard's Origin", async () => {
    const email = `csrf-${run}@example.org`;
    await createUser(email);
    const projectId = await createProject(`csrf ${run}`);
    await addMember(projectId, email, "owner");
    const b = await signIn(email);
    const patch = (headers: Record<string, string>) =>
      admin().patch(`/admin/projects/${projectId}`).set(headers).send({ default_timezone: "Europe/Paris" });
    const { "x-csrf-token": _csrf, ...noToken } = as(b);
    const missing = await patch(noToken);
    expect(missing.status).toBe(403);
    expect(missing.body.error).toBe("Refused: missing or invalid CSRF token (x-csrf-token)");
    expect((await patch(as(b, { "x-csrf-token": "forged" }))).status).toBe(403);
    const crossSite = await patch(as(b, { Origin: "https://evil.example" }));
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error).toBe("Refused: the request does not come from the dashboard's origin");
    expect((await patch(as(b))).status).toBe(200);
    // no login CSRF: another site's page cannot sign this browser in to an account of its choosing
    const foreignSignIn = await admin()
      .post("/admin/auth/sign-in")
      .set({ ...ADDR, Host: HOST, Origin: "https://evil.example" })
      .send({ email, password: PASSWORD });
    expect(foreignSignIn.status).toBe(403);
    expect(foreignSignIn.headers["set-cookie"]).toBeUndefined();
  });
});

describe("roles, enforced by the API", () => {
  it("a viewer's write is 403 on every admin route of a project; reads are allowed; a non-member sees 404", async () => {
    const projectId = await createProject(`roles ${run}`);
    const viewer = `viewer-${run}@example.org`;
    const stranger = `stranger-${run}@example.org`;
    await createUser(viewer);
    await createUser(stranger);
    await addMember(projectId, viewer, "viewer");
    const v = await signIn(viewer);
    const doc = adminOpenApi() as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/admin/projects/{projectId}"))
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => ["post", "put", "patch", "delete"].includes(m))
          // a POST that only reads (the segment builder's count) is a viewer's too: asked below
          .filter((m) => !(m === "post" && path.endsWith("/segments/preview")))
          .map(
            (m) =>
              [
                m,
                path
                  .replace("{projectId}", projectId)
                  .replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000"),
              ] as const,
          ),
      );
    expect(writes.length).toBeGreaterThan(20);
    for (const [method, path] of writes) {
      const agent = admin();
      const call =
        method === "post"
          ? agent.post(path)
          : method === "put"
            ? agent.put(path)
            : method === "patch"
              ? agent.patch(path)
              : agent.delete(path);
      const res = await call.set(as(v)).send({});
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
    }
    const preview = await admin()
      .post(`/admin/projects/${projectId}/segments/preview`)
      .set(as(v))
      .send({ filter: { tag: "vip" } });
    expect(preview.status).not.toBe(403);
    expect((await admin().get(`/admin/projects/${projectId}/members`).set(as(v))).status).toBe(200);
    expect((await admin().get(`/admin/projects/${projectId}`).set(as(v))).status).toBe(200);
    // the viewer lists only its own projects
    const list = await admin().get("/admin/projects").set(as(v));
    expect(list.body.projects).toEqual([{ id: projectId, name: `roles ${run}`, role: "viewer" }]);
    const s = await signIn(stranger);
    expect((await admin().get(`/admin/projects/${projectId}`).set(as(s))).status).toBe(404);
    expect((await admin().post("/admin/projects").set(as(s)).send({ name: "mine" })).status).toBe(403);
  });

  it("a member may edit content but not regenerate keys; an admin may; only an owner grants ownership", async () => {
    const projectId = await createProject(`ranks ${run}`);
    const member = `member-${run}@example.org`;
    const adminUser = `admin-${run}@example.org`;
    await createUser(member);
    await createUser(adminUser);
    await addMember(projectId, member, "member");
    await addMember(projectId, adminUser, "admin");
    const m = await signIn(member);
    const a = await signIn(adminUser);
    const template = await admin()
      .post(`/admin/projects/${projectId}/templates`)
      .set(as(m))
      .send({ name: "t", subject: "s", html: "<p>h</p>" });
    expect(template.status).toBe(201);
    const regen = (b: Browser) =>
      admin().post(`/admin/projects/${projectId}/keys/test/regenerate`).set(as(b));
    const refused = await regen(m);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("Forbidden: this needs the admin role in the project; you are a member");
    expect((await regen(a)).status).toBe(200);
    const grant = await admin()
      .put(`/admin/projects/${projectId}/members`)
      .set(as(a))
      .send({ email: member, role: "owner" });
    expect(grant.status).toBe(403);
  });
});

describe("the audit log", () => {
  it("records who changed what, where from, and failed sign-ins; it cannot be edited", async () => {
    const email = `audited-${run}@example.org`;
    await createUser(email);
    const projectId = await createProject(`audit ${run}`);
    await addMember(projectId, email, "owner");
    const b = await signIn(email);
    expect(
      (
        await admin()
          .post(`/admin/projects/${projectId}/keys/live/regenerate`)
          .set(as(b, { "x-forwarded-for": "198.51.100.9" }))
      ).status,
    ).toBe(200);
    expect(
      (await admin().patch(`/admin/projects/${projectId}`).set(ADMIN).send({ webhook_url: null })).status,
    ).toBe(200);
    await admin().post("/admin/auth/sign-in").set(ADDR).send({ email, password: "wrong password" });
    await new Promise((r) => setTimeout(r, 300));
    const log = await admin().get(`/admin/projects/${projectId}/audit-events`).set(as(b));
    expect(log.status).toBe(200);
    expect(log.body.events.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(["keys.live.regenerate", "project.update", "members.update"]),
    );
    const regen = log.body.events.find((e: { action: string }) => e.action === "keys.live.regenerate");
    expect(regen).toMatchObject({
      route: "POST /admin/projects/:id/keys/live/regenerate",
      status: 200,
      actor: { type: "user", email },
      ip: "198.51.100.9",
    });
    const byToken = log.body.events.find((e: { action: string }) => e.action === "project.update");
    expect(byToken.actor).toEqual({ type: "token", email: null });
    const filtered = await admin().get(`/admin/projects/${projectId}/audit-events?action=keys`).set(ADMIN);
    expect(filtered.body.events.every((e: { action: string }) => e.action.startsWith("keys."))).toBe(true);
    const failed = await h.deps.db.pool.query(
      "SELECT action, actor_type, status FROM audit_events WHERE actor_email = $1 AND action = 'auth.sign_in_failed'",
      [email],
    );
    expect(failed.rows).toEqual([{ action: "auth.sign_in_failed", actor_type: "anonymous", status: 401 }]);
    await expect(
      h.deps.db.pool.query("UPDATE audit_events SET action = 'x' WHERE project_id = $1", [projectId]),
    ).rejects.toThrow(/append-only/);
    await expect(
      h.deps.db.pool.query("DELETE FROM audit_events WHERE project_id = $1", [projectId]),
    ).rejects.toThrow(/append-only/);
  });
});
