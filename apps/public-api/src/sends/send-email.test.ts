// sendEmail's decisions with its deps faked by hand: the accept (`accepts.submit`) records what it is asked and
// answers as packages/sending would; the lane comes from a fake `laneFor`. The sender check and suppression
// filter that run after the accept's gates refused read `db.pool` straight (packages/sending's
// checkSenderAndFilter, no repository to fake), so `db` here is a stand-in answering that one statement.
// Real: the body schemas, rendering, attachment checks. No database, broker or S3.
import { projectIdOf } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { ErrorCode } from "@emailsvc/http";
import { createLogger } from "@emailsvc/observability";
import type { AcceptResult, AcceptSendInput, SendLane } from "@emailsvc/sending";
import { createTemplateCache } from "@emailsvc/sending";
import type { SendDeps, SendEmailContext } from "./send-deps";
import { MSG_QUEUED, sendEmail } from "./send-email";

const PROJECT = projectIdOf("0190a0b0-0000-7000-8000-000000000001");
const SENDER = "shop@verified.example";

/** What the project's sender check would answer: whether SENDER is verified and which addresses are suppressed. */
interface Checks {
  verified: boolean;
  suppressed?: Record<string, string>;
}

function fakeDeps(
  opts: { accept?: (i: AcceptSendInput) => AcceptResult; checks?: Checks; lane?: SendLane } = {},
) {
  const submitted: AcceptSendInput[] = [];
  const stored: string[] = [];
  let kicks = 0;
  let checksMade = 0;
  const checks = opts.checks ?? { verified: true };
  const accepted = (i: AcceptSendInput): AcceptResult => ({
    kind: "accepted",
    emailMessageId: i.emailMessageId,
    activities: i.recipients.map((recipient, n) => ({ id: `act-${n}`, recipient })),
    period: "2030-01",
  });
  const db = {
    pool: {
      // checkSenderAndSuppressions' one statement: { sender, domain, suppressed }
      query: async () => {
        checksMade++;
        return { rows: [{ sender: checks.verified, domain: false, suppressed: checks.suppressed ?? null }] };
      },
    },
  } as unknown as Db;
  const deps: SendDeps = {
    db,
    broker: { rpcCall: () => Promise.reject(new Error("no RPC in a v1 send")) },
    logger: createLogger({ service: "test", level: "silent" }),
    downloader: {
      check: () => undefined,
      download: () => Promise.reject(new Error("no download expected")),
    } as unknown as SendDeps["downloader"],
    store: {
      bucket: "attachments",
      put: async (key: string) => void stored.push(key),
    },
    templateCache: createTemplateCache(),
    outbox: { kick: () => void kicks++ },
    accepts: {
      submit: async (input) => {
        submitted.push(input);
        return (opts.accept ?? accepted)(input);
      },
    },
    rpcTimeoutMs: 1000,
    ...(opts.lane ? { laneFor: async () => opts.lane! } : {}),
  };
  return {
    deps,
    submitted,
    stored,
    kicks: () => kicks,
    checksMade: () => checksMade,
  };
}

const live = (over: Partial<SendEmailContext> = {}): SendEmailContext => ({
  auth: { projectId: PROJECT, mode: "live", keyId: "key-1" },
  ...over,
});

const body = (over: Record<string, unknown> = {}) => ({
  recipient_email: "ada@example.com",
  sender_email: SENDER,
  subject: "Hi {{name}}",
  html_body: "<p>Hello {{name}}</p>",
  data: { name: "Ada" },
  ...over,
});

describe("sendEmail", () => {
  it.each([
    ["recipient_email", { recipient_email: "" }],
    ["sender_email", { sender_email: null }],
    ["html_body", { html_body: undefined }],
  ])(
    "refuses a body without %s with the spec's 400 message, before anything is accepted",
    async (_f, over) => {
      const f = fakeDeps();
      await expect(sendEmail(f.deps, live(), body(over))).rejects.toMatchObject({
        code: ErrorCode.VALIDATION,
        message: "Missing required fields: recipient_email, sender_email, html_body",
      });
      expect(f.submitted).toHaveLength(0);
    },
  );

  it("accepts a live send: rendered, counted, gated in the statement, reply tokens, and answers with its id", async () => {
    const f = fakeDeps();
    const out = await sendEmail(
      f.deps,
      live({ correlationId: "req-9" }),
      body({ cc: ["ADA@example.com", "c@example.com"] }),
    );
    const [input] = f.submitted;
    expect(out).toEqual({
      status: 200,
      body: { message: MSG_QUEUED, email_id: input!.emailMessageId, project_id: PROJECT },
    });
    expect(input).toMatchObject({
      projectId: PROJECT,
      isTest: false,
      counted: true,
      lane: "transactional",
      subject: "Hi Ada",
      html: "<p>Hello Ada</p>",
      recipients: ["ada@example.com"],
      // the recipient is not copied again
      cc: ["c@example.com"],
      replyTokens: true,
      enqueue: true,
      correlationId: "req-9",
      gates: { sender: SENDER, addresses: ["ada@example.com", "c@example.com"] },
    });
    // The usual send is one round trip: no separate sender check.
    expect(f.checksMade()).toBe(0);
    expect(f.kicks()).toBe(1);
  });

  it("a test key's send is marked test and not counted", async () => {
    const f = fakeDeps();
    await sendEmail(f.deps, { auth: { projectId: PROJECT, mode: "test", keyId: "k" } }, body());
    expect(f.submitted[0]).toMatchObject({ isTest: true, counted: false });
  });

  it("goes in the lane laneFor chooses (bulk past the project's fair share)", async () => {
    const f = fakeDeps({ lane: "bulk" });
    await sendEmail(f.deps, live(), body());
    expect(f.submitted[0]!.lane).toBe("bulk");
  });

  it("does not kick the relay when the outbox row was handed to it", async () => {
    const f = fakeDeps({
      accept: (i) => ({
        kind: "accepted",
        emailMessageId: i.emailMessageId,
        activities: [],
        period: "p",
        outboxHanded: true,
      }),
    });
    await sendEmail(f.deps, live(), body());
    expect(f.kicks()).toBe(0);
  });

  it("stores the idempotency key with the response it will answer, and answers a replay with the stored one", async () => {
    const stored = { status: 200, body: { message: MSG_QUEUED, email_id: "first" } };
    const f = fakeDeps({ accept: () => ({ kind: "replay", response: stored }) });
    const idem = { key: "order-1", fingerprint: "fp" };
    const out = await sendEmail(f.deps, live({ idempotency: idem }), body());
    expect(out).toEqual({ ...stored, replayed: true });
    const sent = f.submitted[0]!;
    expect(sent.idempotency).toEqual({
      ...idem,
      response: {
        status: 200,
        body: { message: MSG_QUEUED, email_id: sent.emailMessageId, project_id: PROJECT },
      },
    });
    expect(f.kicks()).toBe(0);
  });

  it("an unverified sender: the gates refuse, the check says why: 403 SENDER_NOT_VERIFIED", async () => {
    const f = fakeDeps({ accept: () => ({ kind: "gates_refused" }), checks: { verified: false } });
    await expect(sendEmail(f.deps, live(), body())).rejects.toMatchObject({
      code: ErrorCode.SENDER_NOT_VERIFIED,
      message: expect.stringContaining("verified.example"),
    });
    expect(f.submitted).toHaveLength(1);
  });

  it("every recipient suppressed: the skipped body of spec 4.1, nothing accepted", async () => {
    const f = fakeDeps({
      accept: () => ({ kind: "gates_refused" }),
      checks: { verified: true, suppressed: { "ada@example.com": "bounce" } },
    });
    const out = await sendEmail(f.deps, live(), body({ recipient_email: "Ada@Example.com" }));
    expect(out).toEqual({
      status: 200,
      body: {
        message: "Email not sent: Ada@Example.com is on the suppression list (bounce)",
        skipped: true,
        suppression_reason: "bounce",
        recipient: "Ada@Example.com",
      },
    });
    expect(f.submitted).toHaveLength(1); // the gated attempt only
  });

  it("some recipients suppressed: the others are accepted without gates, and the answer counts the skipped", async () => {
    let calls = 0;
    const f = fakeDeps({
      accept: (i) =>
        calls++ === 0
          ? { kind: "gates_refused" }
          : { kind: "accepted", emailMessageId: i.emailMessageId, activities: [], period: "p" },
      checks: {
        verified: true,
        suppressed: {
          "b@example.com": "complaint",
          "c@example.com": "unsubscribed",
          "x@example.com": "bounce",
        },
      },
    });
    const out = await sendEmail(
      f.deps,
      live(),
      body({ recipient_email: ["a@example.com", "b@example.com", "c@example.com"], bcc: ["x@example.com"] }),
    );
    expect(out.body).toMatchObject({ message: `${MSG_QUEUED} (2 suppressed recipients skipped)` });
    const second = f.submitted[1]!;
    expect(second.recipients).toEqual(["a@example.com"]);
    expect(second.bcc).toEqual([]);
    expect(second.gates).toBeUndefined();
  });

  it("with attachments, checks the sender first and never stores them for an unverified sender", async () => {
    const f = fakeDeps({ checks: { verified: false } });
    const attachments = [{ filename: "a.pdf", content: Buffer.from("%PDF").toString("base64") }];
    await expect(sendEmail(f.deps, live(), body({ attachments }))).rejects.toMatchObject({
      code: ErrorCode.SENDER_NOT_VERIFIED,
    });
    expect(f.stored).toEqual([]);
    expect(f.submitted).toEqual([]);

    const ok = fakeDeps();
    await sendEmail(ok.deps, live(), body({ attachments }));
    const sent = ok.submitted[0]!;
    expect(ok.stored).toEqual([`${PROJECT}/${sent.emailMessageId}/0-a.pdf`]);
    expect(sent.attachments).toEqual([
      { filename: "a.pdf", contentType: "application/pdf", size: 4, storageKey: ok.stored[0] },
    ]);
    expect(sent.gates).toBeUndefined(); // checked already
  });

  it("dry run: describes the email after the checks, accepts nothing", async () => {
    const f = fakeDeps({ checks: { verified: true, suppressed: { "b@example.com": "bounce" } } });
    const out = await sendEmail(
      f.deps,
      { auth: { projectId: PROJECT, mode: "test", keyId: "k" } },
      body({ recipient_email: ["a@example.com", "b@example.com"], sender_name: "Shop", dry_run: true }),
    );
    expect(out).toEqual({
      status: 200,
      body: {
        dry_run: true,
        test_mode: true,
        would_send: {
          to: ["a@example.com"],
          from: `Shop <${SENDER}>`,
          subject: "Hi Ada",
          html_preview: "<p>Hello Ada</p>",
          variables_used: ["name"],
        },
      },
    });
    expect(f.submitted).toEqual([]);
  });
});
