// Issue 45: invitations to a project. Real: PostgreSQL (invitations, users, members, sessions, the audit log, the
// email's activity and outbox row), Redis (the token throttle), RabbitMQ (the outbox relay). Signed-in browsers are
// played by supertest with the cookie, CSRF token and Origin a browser sends; the invitee has no session at all.
import request from "supertest";
import { makeProject, startHarness, testEnv, type Harness, type TestProject } from "./helpers";

const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
const HOST = "dash.test";
const ORIGIN = `http://${HOST}`;
const run = Date.now().toString(36);
const PASSWORD = "a long enough password";
/** An address of its own per call: the throttles count per address in the Redis every package shares. */
const addr = () => ({
  "x-forwarded-for": `203.0.113.${Math.floor(Math.random() * 250) + 1}, 198.51.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`,
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness(testEnv({ SIGN_IN_FAILURES_PER_ADDRESS: "20" }));
});
afterAll(async () => {
  await h?.close();
});

const api = () => request(h.internal);
async function createUser(email: string) {
  expect(
    (await api().post("/admin/users").set(ADMIN).send({ email, password: PASSWORD, name: "Old" })).status,
  ).toBe(201);
}
async function createProject(name: string) {
  const res = await api().post("/admin/projects").set(ADMIN).send({ name });
  expect(res.status).toBe(201);
  return res.body.project.id as string;
}
async function addMember(projectId: string, email: string, role: string) {
  expect(
    (await api().put(`/admin/projects/${projectId}/members`).set(ADMIN).send({ email, role })).status,
  ).toBe(200);
}
async function signIn(email: string) {
  const res = await api()
    .post("/admin/auth/sign-in")
    .set({ ...addr(), Host: HOST, Origin: ORIGIN })
    .send({ email, password: PASSWORD });
  expect(res.status).toBe(200);
  return {
    cookie: (res.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!,
    csrf: res.body.csrf_token as string,
  };
}
type Browser = Awaited<ReturnType<typeof signIn>>;
const as = (b: Browser, extra: Record<string, string> = {}) => ({
  Cookie: b.cookie,
  Host: HOST,
  Origin: ORIGIN,
  "x-csrf-token": b.csrf,
  ...extra,
});
/** An owner of a fresh project, signed in. */
async function ownerOfNewProject(tag: string) {
  const projectId = await createProject(`${tag} ${run}`);
  const email = `owner-${tag}-${run}@example.org`;
  await createUser(email);
  await addMember(projectId, email, "owner");
  return { projectId, email, b: await signIn(email) };
}
async function invite(b: Browser, projectId: string, email: string, role = "viewer") {
  return api().post(`/admin/projects/${projectId}/invitations`).set(as(b)).send({ email, role });
}
const tokenOf = (url: string) => url.split("/invite/")[1]!;
const accept = (token: string, body: object, headers: Record<string, string> = {}) =>
  api()
    .post(`/admin/invitations/${token}/accept`)
    .set({ ...addr(), Host: HOST, ...headers })
    .send(body);

describe("inviting without a sender configured", () => {
  it("answers with the link; the invitee, with no session, sees who invited them, sets a password, is signed in as a viewer who cannot regenerate keys", async () => {
    const { projectId, email: ownerEmail, b } = await ownerOfNewProject("invite");
    const invitee = `Viewer-${run}@example.org`;
    const res = await invite(b, projectId, invitee);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      email_sent: false,
      email_problem: "no sender is configured for invitations (DASHBOARD_INVITE_FROM)",
      invitation: {
        email: invitee.toLowerCase(),
        role: "viewer",
        status: "pending",
        invited_by: { email: ownerEmail },
      },
    });
    expect(res.body.invite_url).toMatch(new RegExp(`^http://${HOST}/dashboard/invite/[A-Za-z0-9_-]{43}$`));
    const token = tokenOf(res.body.invite_url);
    const expires = new Date(res.body.invitation.expires_at).getTime() - Date.now();
    expect(expires).toBeGreaterThan(71.9 * 3_600_000);
    expect(expires).toBeLessThanOrEqual(72 * 3_600_000);
    // only the hash is stored
    const stored = await h.deps.db.pool.query("SELECT token_hash FROM invitations WHERE project_id = $1", [
      projectId,
    ]);
    expect(stored.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored.rows)).not.toContain(token);

    const pending = await api().get(`/admin/projects/${projectId}/invitations`).set(as(b));
    expect(pending.body.invitations.map((i: { email: string }) => i.email)).toEqual([invitee.toLowerCase()]);

    // no cookie, no token: the link is the credential
    const page = await api().get(`/admin/invitations/${token}`).set(addr());
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({
      invitation: {
        project_name: `invite ${run}`,
        role: "viewer",
        status: "pending",
        invited_by: { email: ownerEmail },
      },
      has_account: false,
      signed_in_as: null,
    });

    expect((await accept(token, { name: "Vi", password: "short" })).status).toBe(400);
    const ok = await accept(token, { name: "Vi Ewer", password: PASSWORD }, { Origin: ORIGIN });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      project_id: projectId,
      user: { email: invitee.toLowerCase(), name: "Vi Ewer" },
      memberships: [{ project_id: projectId, role: "viewer" }],
    });
    const cookie = (ok.headers["set-cookie"] as unknown as string[])[0]!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const viewer = { cookie: cookie.split(";")[0]!, csrf: ok.body.csrf_token as string };

    // a viewer: reads, but the API refuses the regenerate
    expect((await api().get(`/admin/projects/${projectId}/keys`).set(as(viewer))).status).toBe(200);
    const regen = await api().post(`/admin/projects/${projectId}/keys/test/regenerate`).set(as(viewer));
    expect(regen.status).toBe(403);
    expect(regen.body.error).toBe("Forbidden: this needs the admin role in the project; you are a viewer");
    // nor may it invite
    expect((await invite(viewer, projectId, `x-${run}@example.org`)).status).toBe(403);

    // the link is used up
    const again = await accept(token, { name: "Mallory", password: PASSWORD });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      error: "This invitation was used already: sign in instead",
      invitation_status: "accepted",
    });
    expect((await api().get(`/admin/invitations/${token}`).set(addr())).body.invitation.status).toBe(
      "accepted",
    );
    expect((await api().get(`/admin/projects/${projectId}/invitations`).set(as(b))).body.invitations).toEqual(
      [],
    );

    await new Promise((r) => setTimeout(r, 300));
    const log = await api().get(`/admin/projects/${projectId}/audit-events`).set(as(b));
    const invited = log.body.events.find((e: { action: string }) => e.action === "user.invited");
    expect(invited).toMatchObject({
      route: "POST /admin/projects/:id/invitations",
      status: 201,
      actor: { type: "user", email: ownerEmail },
    });
    const accepted = log.body.events.find((e: { action: string }) => e.action === "invitation.accepted");
    expect(accepted).toMatchObject({
      route: "POST /admin/invitations/:token/accept",
      status: 200,
      actor: { type: "user", email: invitee.toLowerCase() },
    });
    const rows = await h.deps.db.pool.query("SELECT route, detail FROM audit_events WHERE project_id = $1", [
      projectId,
    ]);
    expect(JSON.stringify(rows.rows)).not.toContain(token);
    expect(rows.rows.find((r: { route: string }) => r.route.includes("invitations"))?.detail).toMatchObject({
      email: invitee.toLowerCase(),
      role: "viewer",
    });
  });

  it("an expired link is refused and says so; a member or a pending invitation cannot be invited twice", async () => {
    const { projectId, email: ownerEmail, b } = await ownerOfNewProject("expiry");
    const invitee = `late-${run}@example.org`;
    const res = await invite(b, projectId, invitee, "member");
    expect((await invite(b, projectId, invitee)).status).toBe(409);
    expect((await invite(b, projectId, ownerEmail)).body.error).toBe(
      `${ownerEmail} is a member of this project already`,
    );
    await h.deps.db.pool.query(
      "UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1",
      [res.body.invitation.id],
    );
    const token = tokenOf(res.body.invite_url);
    expect((await api().get(`/admin/invitations/${token}`).set(addr())).body.invitation.status).toBe(
      "expired",
    );
    const late = await accept(token, { name: "Late", password: PASSWORD });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe(`This invitation expired: ask Old for a new one`);
    expect(
      await h.deps.db.pool.query("SELECT 1 FROM users WHERE email = $1", [invitee]).then((r) => r.rowCount),
    ).toBe(0);
    // an expired one may be sent again: a new link, a new expiry
    const resent = await api()
      .post(`/admin/projects/${projectId}/invitations/${res.body.invitation.id}/resend`)
      .set(as(b));
    expect(resent.status).toBe(200);
    expect((await accept(tokenOf(resent.body.invite_url), { name: "Late", password: PASSWORD })).status).toBe(
      200,
    );
  });

  it("revoking kills the link; resending kills the old link and the new one works", async () => {
    const { projectId, b } = await ownerOfNewProject("revoke");
    const first = await invite(b, projectId, `revoked-${run}@example.org`);
    const revoke = await api()
      .delete(`/admin/projects/${projectId}/invitations/${first.body.invitation.id}`)
      .set(as(b));
    expect(revoke.status).toBe(200);
    const refused = await accept(tokenOf(first.body.invite_url), { name: "R", password: PASSWORD });
    expect(refused.status).toBe(409);
    expect(refused.body.invitation_status).toBe("revoked");
    expect(
      (await api().delete(`/admin/projects/${projectId}/invitations/${first.body.invitation.id}`).set(as(b)))
        .status,
    ).toBe(409);

    const second = await invite(b, projectId, `resent-${run}@example.org`);
    const resent = await api()
      .post(`/admin/projects/${projectId}/invitations/${second.body.invitation.id}/resend`)
      .set(as(b));
    expect(resent.status).toBe(200);
    expect(resent.body.invite_url).not.toBe(second.body.invite_url);
    const old = await accept(tokenOf(second.body.invite_url), { name: "S", password: PASSWORD });
    expect(old.status).toBe(404);
    expect(old.body.error).toBe("This invitation link is not valid: ask for a new one");
    expect((await accept(tokenOf(resent.body.invite_url), { name: "S", password: PASSWORD })).status).toBe(
      200,
    );

    await new Promise((r) => setTimeout(r, 300));
    const actions = (await api().get(`/admin/projects/${projectId}/audit-events`).set(ADMIN)).body.events.map(
      (e: { action: string }) => e.action,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        "user.invited",
        "invitation.revoked",
        "invitation.resent",
        "invitation.accepted",
      ]),
    );
  });

  it("roles: a member may not invite; an admin may, but not an owner; an owner may invite an owner", async () => {
    const { projectId, b: owner } = await ownerOfNewProject("ranks");
    const memberEmail = `m-${run}@example.org`;
    const adminEmail = `a-${run}@example.org`;
    await createUser(memberEmail);
    await createUser(adminEmail);
    await addMember(projectId, memberEmail, "member");
    await addMember(projectId, adminEmail, "admin");
    const m = await signIn(memberEmail);
    const a = await signIn(adminEmail);
    const byMember = await invite(m, projectId, `x1-${run}@example.org`);
    expect(byMember.status).toBe(403);
    expect(byMember.body.error).toBe("Forbidden: this needs the admin role in the project; you are a member");
    const ownerByAdmin = await invite(a, projectId, `x2-${run}@example.org`, "owner");
    expect(ownerByAdmin.status).toBe(403);
    expect(ownerByAdmin.body.error).toBe("Forbidden: only an owner may grant or remove the owner role");
    expect((await invite(a, projectId, `x3-${run}@example.org`, "admin")).status).toBe(201);
    const ownerInvite = await invite(owner, projectId, `x4-${run}@example.org`, "owner");
    expect(ownerInvite.status).toBe(201);
    // nor may the admin revoke or resend the owner's invitation
    expect(
      (
        await api()
          .delete(`/admin/projects/${projectId}/invitations/${ownerInvite.body.invitation.id}`)
          .set(as(a))
      ).status,
    ).toBe(403);
    expect(
      (
        await api()
          .post(`/admin/projects/${projectId}/invitations/${ownerInvite.body.invitation.id}/resend`)
          .set(as(a))
      ).status,
    ).toBe(403);
    // a member reads the pending invitations, as they read the team
    expect(
      (await api().get(`/admin/projects/${projectId}/invitations`).set(as(m))).body.invitations,
    ).toHaveLength(2);
  });
});

describe("accepting, and CSRF", () => {
  it("refuses a foreign Origin; an existing user joins only signed in as the invited address, with the CSRF token", async () => {
    const { projectId, b } = await ownerOfNewProject("csrf");
    const existing = `existing-${run}@example.org`;
    const other = `other-${run}@example.org`;
    await createUser(existing);
    await createUser(other);
    const res = await invite(b, projectId, existing, "member");
    const token = tokenOf(res.body.invite_url);

    const crossSite = await accept(
      token,
      { name: "E", password: PASSWORD },
      { Origin: "https://evil.example" },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error).toBe("Refused: the request does not come from the dashboard's origin");

    const page = await api().get(`/admin/invitations/${token}`).set(addr());
    expect(page.body.has_account).toBe(true);
    const signedOut = await accept(token, {});
    expect(signedOut.status).toBe(409);
    expect(signedOut.body).toMatchObject({
      error: `You have an account: sign in as ${existing} to accept`,
      sign_in_first: true,
    });

    const o = await signIn(other);
    const wrongUser = await accept(token, {}, as(o));
    expect(wrongUser.status).toBe(403);
    expect(wrongUser.body.error).toBe(`This invitation is for ${existing}; you are signed in as ${other}`);

    const e = await signIn(existing);
    const { "x-csrf-token": _csrf, ...noToken } = as(e);
    const forged = await accept(token, {}, noToken);
    expect(forged.status).toBe(403);
    expect(forged.body.error).toBe("Refused: missing or invalid CSRF token (x-csrf-token)");
    expect(
      (
        await api()
          .get(`/admin/invitations/${token}`)
          .set({ ...addr(), Cookie: e.cookie })
      ).body.signed_in_as,
    ).toBe(existing);
    const joined = await accept(token, {}, as(e));
    expect(joined.status).toBe(200);
    expect(joined.body).toMatchObject({
      project_id: projectId,
      csrf_token: e.csrf,
      memberships: [{ project_id: projectId, role: "member" }],
    });
    expect(joined.headers["set-cookie"]).toBeUndefined();
  });

  it("throttles unknown links per address like failed sign-ins", async () => {
    const from = addr();
    // the admin token guesses nothing (it may do anything already): its lookups do not count
    for (let i = 0; i < 25; i++)
      expect(
        (
          await api()
            .get(`/admin/invitations/by-token-${i}`)
            .set({ ...from, ...ADMIN })
        ).status,
      ).toBe(404);
    for (let i = 0; i < 20; i++)
      expect((await api().get(`/admin/invitations/not-a-token-${i}`).set(from)).status).toBe(404);
    const throttled = await api().get(`/admin/invitations/not-a-token-x`).set(from);
    expect(throttled.status).toBe(429);
    expect(throttled.body.error).toBe("Too many invalid invitation links; try again in a few minutes");
    expect((await api().post(`/admin/invitations/not-a-token-y/accept`).set(from).send({})).status).toBe(429);
  });
});

describe("inviting with a platform sender configured", () => {
  let h2: Harness;
  let platform: TestProject;
  beforeAll(async () => {
    // a sender of its own: makeProject's addresses repeat across this package's files (one worker, one pid), and
    // the platform's project is found by its verified sender
    platform = await makeProject(h.deps, { verifiedSender: false });
    platform.sender = `invitations-${run}@platform-${run}.example.com`;
    expect(
      (
        await api()
          .post(`/admin/projects/${platform.projectId}/senders`)
          .set(ADMIN)
          .send({ email: platform.sender, name: "Platform" })
      ).status,
    ).toBe(201);
    h2 = await startHarness(
      testEnv({
        DASHBOARD_INVITE_FROM: `Team at Example <${platform.sender}>`,
        DASHBOARD_PUBLIC_URL: "https://dash.example.com/dashboard/",
      }),
    );
  });
  afterAll(async () => {
    await h2?.close();
  });

  it("sends the invitation as a live send of the platform's project, with the link only in the email", async () => {
    const projectId = await createProject(`emailed ${run}`);
    const invitee = `emailed-${run}@example.org`;
    const res = await request(h2.internal)
      .post(`/admin/projects/${projectId}/invitations`)
      .set(ADMIN)
      .send({ email: invitee, role: "member" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email_sent: true,
      invitation: { email: invitee, role: "member", invited_by: null },
    });
    expect(res.body.invite_url).toBeUndefined();
    const { rows } = await h.deps.db.pool.query(
      `SELECT m.project_id, m.source, m.from_email, m.from_name, m.subject, m.html, m.text, a.recipient, a.is_test
         FROM email_messages m JOIN activities a ON a.email_message_id = m.id WHERE m.id = $1`,
      [res.body.email_id],
    );
    expect(rows[0]).toMatchObject({
      project_id: platform.projectId,
      source: "platform",
      from_email: platform.sender,
      from_name: "Team at Example",
      subject: `You are invited to emailed ${run}`,
      recipient: invitee,
      is_test: false,
    });
    const link = /https:\/\/dash\.example\.com\/dashboard\/invite\/([A-Za-z0-9_-]{43})/.exec(rows[0].text)!;
    expect(rows[0].html).toContain(link[0]);
    // the emailed link works
    const ok = await request(h2.internal)
      .post(`/admin/invitations/${link[1]}/accept`)
      .set(addr())
      .send({ name: "Em", password: PASSWORD });
    expect(ok.status).toBe(200);
  });
});
