// POST /v1/send-template-email (spec 4.2, 7). Real: PostgreSQL, RabbitMQ, Redis, s3rver.
import request from "supertest";
import { MSG_SEND_TEMPLATE_MISSING } from "@emailsvc/contracts";
import {
  bearer,
  count,
  makeProject,
  startHarness,
  startS3,
  suppress,
  testEnv,
  type Harness,
  type TestProject,
} from "./helpers";

let h: Harness;
let s3: Awaited<ReturnType<typeof startS3>>;
let p: TestProject;

beforeAll(async () => {
  s3 = await startS3();
  h = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint }));
});
afterAll(async () => {
  await h?.close();
  await s3?.close();
});
beforeEach(async () => {
  p = await makeProject(h.deps);
});

async function createTemplate(projectId: string, t: { subject: string; html: string; text?: string }) {
  return h.deps.db.prisma.$transaction(async (tx) => {
    const { templateSeq } = await tx.project.update({
      where: { id: projectId },
      data: { templateSeq: { increment: 1 } },
      select: { templateSeq: true },
    });
    return tx.template.create({
      data: {
        projectId,
        internalId: templateSeq,
        name: "t",
        subject: t.subject,
        html: t.html,
        text: t.text ?? null,
      },
    });
  });
}

const send = (body: Record<string, unknown>, key = p.liveKey) =>
  request(h.app).post("/v1/send-template-email").set(bearer(key)).send(body);
const base = () => ({ recipient_email: "ann@example.org", sender_email: p.sender });

describe("errors", () => {
  it.each([
    ["no template reference", {}],
    ["no recipient", { recipient_email: undefined, template_id: "6f1c2a8e-0f4b-4a5e-9d55-3f8e2c1b7a90" }],
    ["no sender", { sender_email: "", template_id: "6f1c2a8e-0f4b-4a5e-9d55-3f8e2c1b7a90" }],
  ])("400 missing fields: %s", async (_n, patch) => {
    const res = await send({ ...base(), ...patch });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: MSG_SEND_TEMPLATE_MISSING });
    expect(res.body.error).toBe(
      "Missing required fields: recipient_email, sender_email, html_body (or template_id)",
    );
  });

  it.each([["abc"], [-1], [0], [1.5], [true], [{}]])("400 for template_internal_id %j", async (value) => {
    const res = await send({ ...base(), template_internal_id: value });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: "template_internal_id requires valid project context",
    });
  });

  it("404 for another project's template (by UUID and by internal id) and for an unknown one", async () => {
    const other = await makeProject(h.deps);
    const theirs = await createTemplate(other.projectId, { subject: "s", html: "h" });
    for (const ref of [
      { template_id: theirs.id },
      { template_internal_id: theirs.internalId },
      { template_id: "6f1c2a8e-0f4b-4a5e-9d55-3f8e2c1b7a90" },
      // past the int4 column: names no template (it used to fail the query with a 500)
      { template_internal_id: 2147483648 },
      { template_internal_id: "9007199254740991" },
    ]) {
      const res = await send({ ...base(), ...ref });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: "Template not found" });
    }
  });

  it("renders only the variables' own properties: {constructor} is empty, not a 500", async () => {
    const t = await createTemplate(p.projectId, { subject: "s {toString}", html: "<p>Hi {constructor}</p>" });
    const res = await send({ ...base(), template_id: t.id, variables: {} });
    expect(res.status).toBe(200);
  });

  it("400 for a malformed template_id and for an array of recipients; 403 for an unverified sender", async () => {
    const t = await createTemplate(p.projectId, { subject: "s", html: "h" });
    expect((await send({ ...base(), template_id: "nope" })).body).toEqual({
      success: false,
      error: "template_id must be a UUID",
    });
    expect((await send({ ...base(), template_id: t.id, recipient_email: ["a@example.org"] })).status).toBe(
      400,
    );
    const res = await send({ ...base(), template_id: t.id, sender_email: "x@unverified.example" });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("SENDER_NOT_VERIFIED");
  });
});

describe("sending", () => {
  it("renders the template syntax; response fields exactly as 4.2; the second send uses the cached HTML", async () => {
    const t = await createTemplate(p.projectId, {
      subject: "Order {order.id} for {name}",
      html: '<h1>Hi {name || "there"}</h1>{{#each items}}<li>{title}</li>{{/each}}{!footer}',
      text: "Hi {name}",
    });
    const vars = { name: "A&B", order: { id: 9 }, items: [{ title: "x" }, { title: "y" }], footer: "<hr>" };
    const first = await send({ ...base(), template_id: t.id, variables: vars });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      message: "Email queued for sending",
      email_id: expect.any(String),
      project_id: p.projectId,
      template_id: t.id,
      template_internal_id: t.internalId,
      variables_used: ["order.id", "name", "items", "footer"],
      used_cached_html: false,
    });
    const msg = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: first.body.email_id },
    });
    const msgActivities = await h.deps.db.prisma.activity.findMany({ where: { emailMessageId: msg.id } });
    expect(msg).toMatchObject({
      subject: "Order 9 for A&B",
      html: "<h1>Hi A&amp;B</h1><li>x</li><li>y</li><hr>",
      text: "Hi A&B",
      source: "api",
    });
    expect(msgActivities).toHaveLength(1);
    expect(msgActivities[0]!.replyToken).toMatch(/^[a-z0-9]{8}$/);

    const second = await send(
      { ...base(), template_internal_id: t.internalId, subject: "Custom {name}", variables: { name: "Bo" } },
      p.testKey,
    );
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      template_id: t.id,
      template_internal_id: t.internalId,
      used_cached_html: true,
      variables_used: ["name", "items", "footer"],
    });
    const msg2 = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: second.body.email_id },
    });
    const msg2Activities = await h.deps.db.prisma.activity.findMany({ where: { emailMessageId: msg2.id } });
    expect(msg2.subject).toBe("Custom Bo");
    expect(msg2.html).toBe("<h1>Hi Bo</h1>");
    expect(msg2Activities[0]!.isTest).toBe(true);

    // a blank subject is none: the template's ("Defaults to the template's subject"), not an empty one
    const third = await send(
      { ...base(), template_internal_id: t.internalId, subject: " ", variables: { name: "Cy" } },
      p.testKey,
    );
    expect(third.status).toBe(200);
    const msg3 = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({
      where: { id: third.body.email_id },
    });
    expect(msg3.subject).toMatch(/^Order .* for Cy$/);
  });

  it("dry_run renders and checks without storing or sending anything (as 4.1's dry run)", async () => {
    const q = await makeProject(h.deps);
    const t = await createTemplate(q.projectId, { subject: "Hi {name}", html: "<p>{name}</p>" });
    const res = await send(
      { ...base(), sender_email: q.sender, template_id: t.id, variables: { name: "Ann" }, dry_run: true },
      q.testKey,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dry_run: true,
      test_mode: true,
      would_send: {
        to: ["ann@example.org"],
        from: q.sender,
        subject: "Hi Ann",
        html_preview: "<p>Ann</p>",
        variables_used: ["name"],
      },
      template_id: t.id,
      template_internal_id: t.internalId,
      used_cached_html: expect.any(Boolean),
    });
    expect(await count(h.deps, "email_messages WHERE project_id = $1", [q.projectId])).toBe(0);
    expect(await count(h.deps, "activities WHERE project_id = $1", [q.projectId])).toBe(0);
    const bad = await send({ ...base(), template_id: t.id, dry_run: "yes" }, q.testKey);
    expect(bad.body).toEqual({ success: false, error: "dry_run must be a boolean" });
  });

  it("accepts template_internal_id as a string of digits", async () => {
    const t = await createTemplate(p.projectId, { subject: "s", html: "h" });
    const res = await send({ ...base(), template_internal_id: String(t.internalId) });
    expect(res.status).toBe(200);
    expect(res.body.template_internal_id).toBe(t.internalId);
  });

  it("a suppressed recipient gets the 4.1 skipped body", async () => {
    const t = await createTemplate(p.projectId, { subject: "s", html: "h" });
    await suppress(h.deps, p.projectId, "ann@example.org", "unsubscribed");
    const res = await send({ ...base(), template_id: t.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: expect.any(String),
      skipped: true,
      suppression_reason: "unsubscribed",
      recipient: "ann@example.org",
    });
    expect(await h.deps.db.prisma.emailMessage.count({ where: { projectId: p.projectId } })).toBe(0);
  });

  it("an edit through the admin API drops this replica's cached copy at once", async () => {
    const t = await createTemplate(p.projectId, { subject: "s", html: "<p>old</p>" });
    expect((await send({ ...base(), template_id: t.id })).body.used_cached_html).toBe(false);
    expect((await send({ ...base(), template_id: t.id })).body.used_cached_html).toBe(true);
    const edit = await request(h.internal)
      .put(`/admin/projects/${p.projectId}/templates/${t.id}`)
      .set("x-admin-token", "admin-token-for-tests-0123456789")
      .send({ html: "<p>new</p>" });
    expect(edit.status).toBe(200);
    const after = await send({ ...base(), template_internal_id: t.internalId });
    expect(after.body.used_cached_html).toBe(false);
    const msg = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({ where: { id: after.body.email_id } });
    expect(msg.html).toBe("<p>new</p>");
  });
});
