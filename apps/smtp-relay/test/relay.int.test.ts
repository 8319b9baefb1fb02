/**
 * Real: PostgreSQL, RabbitMQ (the outbox relay's publish, read by an observer queue), s3rver, the relay's SMTP
 * listeners with a certificate made for the run, nodemailer as the client. Faked: nothing; the send-worker does
 * not run (what it does with a send request is its own tests' business).
 */
import { randomUUID } from "node:crypto";
import { activitiesFrom, startStack, type Stack, waitFor } from "./harness";

let stack: Stack;
beforeAll(async () => {
  // a small message limit, so "too large" needs 1.5 MB rather than 15
  stack = await startStack({ extraEnv: { SMTP_MAX_MESSAGE_BYTES: String(1024 * 1024) } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const smtpError = async (p: Promise<unknown>) => {
  const err = (await p.then(
    () => new Error("the relay accepted it"),
    (e: unknown) => e,
  )) as { responseCode?: number; response?: string };
  return { code: err.responseCode, response: err.response ?? String(err) };
};

describe("smtp-relay", () => {
  it("accepts a message with an attachment over STARTTLS with a test key into the send model", async () => {
    const project = await stack.makeProject();
    const pdf = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(2000, 7)]);
    const info = await stack.transport(project.testKey).sendMail({
      from: `Shop <${project.sender}>`,
      to: "alice@example.com",
      subject: "Your invoice",
      html: "<p>Hello <b>Alice</b></p>",
      text: "Hello Alice",
      inReplyTo: "<earlier@example.com>",
      attachments: [{ filename: "invoice.pdf", content: pdf, contentType: "application/pdf" }],
    });
    const [activity] = await activitiesFrom(stack.db, project);
    expect(activity).toMatchObject({ recipient: "alice@example.com", is_test: true, source: "smtp" });
    // the 250 names the activity, and it was given only after the commit
    expect(info.response).toBe(`250 2.0.0 queued as ${activity!.id}`);

    const { rows } = await stack.db.pool.query(
      "SELECT subject, html, text, headers, from_name, reply_token FROM email_messages m JOIN activities a ON a.email_message_id = m.id WHERE a.id = $1",
      [activity!.id],
    );
    expect(rows[0]).toMatchObject({
      subject: "Your invoice",
      html: "<p>Hello <b>Alice</b></p>",
      text: "Hello Alice",
      from_name: "Shop",
      headers: { "In-Reply-To": "<earlier@example.com>" },
    });
    expect(rows[0].reply_token).toEqual(expect.any(String));

    const [stored] = activity!.attachments!;
    expect(stored).toMatchObject({ filename: "invoice.pdf", size: pdf.length });
    expect(stored!.storageKey).toBe(`${project.projectId}/${activity!.email_message_id}/0-invoice.pdf`);
    expect(await stack.s3.getObject(stored!.storageKey)).toEqual(pdf);

    // the outbox relay published the send request
    await waitFor(() => stack.published.includes(activity!.id), 10_000, "the send request");
  });

  it("accepts over implicit TLS (465) with a live key, not as a test send", async () => {
    const project = await stack.makeProject();
    const info = await stack.transport(project.liveKey, { implicitTls: true }).sendMail({
      from: project.sender,
      to: "bob@example.com",
      subject: "hi",
      text: "plain text only",
    });
    const [activity] = await activitiesFrom(stack.db, project);
    expect(info.response).toBe(`250 2.0.0 queued as ${activity!.id}`);
    expect(activity!.is_test).toBe(false);
  });

  it("refuses a wrong key with 535 and AUTH before TLS with 530", async () => {
    const project = await stack.makeProject();
    const wrong = await smtpError(
      stack
        .transport(`sk_test_${"0".repeat(64)}`)
        .sendMail({ from: project.sender, to: "a@example.com", subject: "x", text: "x" }),
    );
    expect(wrong.code).toBe(535);
    expect(wrong.response).toMatch(/^535 5\.7\.8 /);

    const plain = await smtpError(
      stack
        .transport(project.testKey, { ignoreTLS: true })
        .sendMail({ from: project.sender, to: "a@example.com", subject: "x", text: "x" }),
    );
    expect(plain.code).toBe(530);
    expect(await activitiesFrom(stack.db, project)).toEqual([]);
  });

  it("refuses an unverified MAIL FROM, and an unverified From: header, with 550 5.7.1", async () => {
    const project = await stack.makeProject();
    const envelope = await smtpError(
      stack.transport(project.testKey).sendMail({
        from: "someone@unverified.example",
        to: "a@example.com",
        subject: "x",
        text: "x",
      }),
    );
    expect(envelope.code).toBe(550);
    expect(envelope.response).toMatch(/^550 5\.7\.1 Sender someone@unverified\.example is not verified/);

    const header = await smtpError(
      stack.transport(project.testKey).sendMail({
        envelope: { from: project.sender, to: ["a@example.com"] },
        from: "other@unverified.example",
        to: "a@example.com",
        subject: "x",
        text: "x",
      }),
    );
    expect(header.code).toBe(550);
    expect(header.response).toMatch(/^550 5\.7\.1 Sender other@unverified\.example is not verified/);
    expect(await activitiesFrom(stack.db, project)).toEqual([]);
  });

  it("refuses a message over the size limit with 552 5.3.4 and writes nothing", async () => {
    const project = await stack.makeProject();
    const big = await smtpError(
      stack.transport(project.testKey).sendMail({
        from: project.sender,
        to: "a@example.com",
        subject: "big",
        text: "x".repeat(1536 * 1024),
      }),
    );
    expect(big.code).toBe(552);
    expect(big.response).toMatch(/^552 5\.3\.4 /);
    expect(await activitiesFrom(stack.db, project)).toEqual([]);
  });

  it("refuses recipients past 50 per RCPT with 452 4.5.3 and sends to the first 50", async () => {
    const project = await stack.makeProject();
    const to = Array.from({ length: 51 }, (_, i) => `r${i}@example.com`);
    const info = await stack
      .transport(project.testKey)
      .sendMail({ from: project.sender, to, subject: "many", text: "x" });
    expect(info.rejected).toEqual(["r50@example.com"]);
    expect((info as { rejectedErrors?: { response: string }[] }).rejectedErrors?.[0]?.response).toMatch(
      /^452 4\.5\.3 /,
    );
    expect(await activitiesFrom(stack.db, project)).toHaveLength(50);
  });

  it("sends once when a client retries the same Message-ID after a lost 250", async () => {
    const project = await stack.makeProject();
    const mail = {
      from: project.sender,
      to: "retry@example.com",
      subject: "once",
      text: "only once",
      messageId: `<${randomUUID()}@client.example>`,
    };
    const first = await stack.transport(project.testKey).sendMail(mail);
    const second = await stack.transport(project.testKey).sendMail(mail);
    const activities = await activitiesFrom(stack.db, project);
    expect(activities).toHaveLength(1);
    expect(first.response).toBe(`250 2.0.0 queued as ${activities[0]!.id}`);
    expect(second.response).toBe(`250 2.0.0 Already queued as message ${activities[0]!.email_message_id}`);

    // the same Message-ID in another project is another message
    const other = await stack.makeProject();
    await stack.transport(other.testKey).sendMail({ ...mail, from: other.sender });
    expect(await activitiesFrom(stack.db, other)).toHaveLength(1);
  });

  it("skips suppressed recipients as /v1/send-email does", async () => {
    const project = await stack.makeProject();
    await stack.db.prisma.suppression.create({
      data: { projectId: project.projectId, email: "gone@example.com", reason: "bounce" },
    });
    const info = await stack.transport(project.testKey).sendMail({
      from: project.sender,
      to: "gone@example.com",
      subject: "x",
      text: "x",
    });
    expect(info.response).toBe("250 2.0.0 Not sent: gone@example.com is on the suppression list (bounce)");
    expect(await activitiesFrom(stack.db, project)).toEqual([]);

    await stack.transport(project.testKey).sendMail({
      from: project.sender,
      to: ["gone@example.com", "kept@example.com"],
      subject: "x",
      text: "x",
    });
    expect((await activitiesFrom(stack.db, project)).map((a) => a.recipient)).toEqual(["kept@example.com"]);
  });

  it("refuses an attachment type spec 8 does not allow with 554 and stores nothing", async () => {
    const project = await stack.makeProject();
    const refused = await smtpError(
      stack.transport(project.testKey).sendMail({
        from: project.sender,
        to: "a@example.com",
        subject: "x",
        text: "x",
        attachments: [
          { filename: "run.exe", content: Buffer.from("MZ"), contentType: "application/x-msdownload" },
        ],
      }),
    );
    expect(refused.code).toBe(554);
    expect(refused.response).toMatch(/type application\/x-msdownload is not allowed/);
    expect(await activitiesFrom(stack.db, project)).toEqual([]);
  });

  it("serves /healthz and /readyz on its HTTP port", async () => {
    const base = `http://127.0.0.1:${stack.env.PORT}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });
});
