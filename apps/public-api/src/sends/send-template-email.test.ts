// sendTemplateEmail's decisions with its deps faked by hand: templates come from the real in-process template
// cache filled by the test; `accepts.submit` records what it is asked. A cache miss reads `db.pool` straight
// (packages/sending's loadTemplate, no repository to fake), so `db` here answers that read with no row.
// Real: the body schema, the template syntax. No database, broker or S3.
import { projectIdOf } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { ErrorCode } from "@emailsvc/http";
import { createLogger } from "@emailsvc/observability";
import { type AcceptSendInput, type CachedTemplate, createTemplateCache } from "@emailsvc/sending";
import type { SendDeps, SendEmailContext } from "./send-deps";
import { MSG_QUEUED } from "./send-email";
import { MSG_TEMPLATE_NOT_FOUND, positiveInt, sendTemplateEmail } from "./send-template-email";

const PROJECT = projectIdOf("0190a0b0-0000-7000-8000-000000000002");
const TEMPLATE: CachedTemplate = {
  id: "0190a0b0-0000-7000-8000-0000000000aa",
  internalId: 7,
  subject: "Order {order} shipped",
  html: "<p>Hi {name}, order {order} is on its way</p>",
  text: null,
};

function fakeDeps(cached: CachedTemplate[] = [TEMPLATE]) {
  const submitted: AcceptSendInput[] = [];
  const reads: unknown[][] = [];
  const templateCache = createTemplateCache();
  for (const t of cached) templateCache.set(PROJECT, t);
  const deps: SendDeps = {
    // loadTemplate's read after a cache miss: this project has no such template
    db: {
      pool: { query: async (_sql: string, params: unknown[]) => (reads.push(params), { rows: [] }) },
    } as unknown as Db,
    broker: { rpcCall: () => Promise.reject(new Error("no RPC in a v1 send")) },
    logger: createLogger({ service: "test", level: "silent" }),
    downloader: {} as SendDeps["downloader"],
    store: { bucket: "b", put: () => Promise.reject(new Error("no attachments in a template send")) },
    templateCache,
    outbox: { kick: () => undefined },
    accepts: {
      submit: async (input) => {
        submitted.push(input);
        return { kind: "accepted", emailMessageId: input.emailMessageId, activities: [], period: "p" };
      },
    },
    rpcTimeoutMs: 1000,
  };
  return { deps, submitted, reads };
}

const ctx: SendEmailContext = { auth: { projectId: PROJECT, mode: "live", keyId: "key" } };
const body = (over: Record<string, unknown> = {}) => ({
  template_id: TEMPLATE.id,
  recipient_email: "ada@example.com",
  sender_email: "shop@verified.example",
  variables: { name: "Ada", order: "A-1" },
  ...over,
});

describe("sendTemplateEmail", () => {
  it("refuses a body without a template reference with the spec's 400 message", async () => {
    const f = fakeDeps();
    await expect(sendTemplateEmail(f.deps, ctx, body({ template_id: undefined }))).rejects.toMatchObject({
      code: ErrorCode.VALIDATION,
      message: "Missing required fields: recipient_email, sender_email, html_body (or template_id)",
    });
  });

  it.each([0, -1, "7a", 1.5, "x"])(
    "refuses template_internal_id %p with the spec's context message",
    async (v) => {
      const f = fakeDeps();
      await expect(
        sendTemplateEmail(f.deps, ctx, body({ template_id: undefined, template_internal_id: v })),
      ).rejects.toMatchObject({
        code: ErrorCode.VALIDATION,
        message: "template_internal_id requires valid project context",
      });
      expect(f.submitted).toEqual([]);
    },
  );

  it("renders the cached template with the variables and answers with the template's ids", async () => {
    const f = fakeDeps();
    const out = await sendTemplateEmail(f.deps, ctx, body());
    const sent = f.submitted[0]!;
    expect(sent).toMatchObject({
      subject: "Order A-1 shipped",
      html: "<p>Hi Ada, order A-1 is on its way</p>",
      recipients: ["ada@example.com"],
      // rendered here: the worker must not render it again per recipient
      templateId: null,
    });
    expect(out).toEqual({
      status: 200,
      body: {
        message: MSG_QUEUED,
        email_id: sent.emailMessageId,
        project_id: PROJECT,
        template_id: TEMPLATE.id,
        template_internal_id: 7,
        variables_used: ["order", "name"],
        used_cached_html: true,
      },
    });
    expect(f.reads).toEqual([]);
  });

  it("finds the template by its internal id, given as a string of digits", async () => {
    const f = fakeDeps();
    const out = await sendTemplateEmail(f.deps, ctx, body({ template_id: null, template_internal_id: "7" }));
    expect(out.body).toMatchObject({ template_id: TEMPLATE.id, template_internal_id: 7 });
  });

  it("a given subject wins over the template's; a blank one does not", async () => {
    const f = fakeDeps();
    await sendTemplateEmail(f.deps, ctx, body({ subject: "Re: {order}" }));
    await sendTemplateEmail(f.deps, ctx, body({ subject: "   " }));
    expect(f.submitted.map((s) => s.subject)).toEqual(["Re: A-1", "Order A-1 shipped"]);
  });

  it("a template the project does not have is 404 Template not found, nothing accepted", async () => {
    const f = fakeDeps([]);
    await expect(sendTemplateEmail(f.deps, ctx, body())).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
      message: MSG_TEMPLATE_NOT_FOUND,
    });
    expect(f.reads).toEqual([[PROJECT, TEMPLATE.id]]);
    expect(f.submitted).toEqual([]);
  });

  it("an internal id past int4 names no template, without a read", async () => {
    const f = fakeDeps([]);
    await expect(
      sendTemplateEmail(f.deps, ctx, body({ template_id: null, template_internal_id: 2_147_483_648 })),
    ).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect(f.reads).toEqual([]);
  });
});

describe("positiveInt", () => {
  it("takes a positive integer as a number or a string of digits, nothing else", () => {
    expect([5, "12", " 3 ", 0, -2, 1.5, "1e3", "", null, 2 ** 60].map(positiveInt)).toEqual([
      5,
      12,
      3,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});
