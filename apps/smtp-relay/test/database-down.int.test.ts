/**
 * The database away while a message is in DATA. Real: PostgreSQL (reached through a TCP proxy this test takes
 * down and brings back, so the shared server keeps running for everyone else), RabbitMQ, s3rver, the relay as a
 * child process (its own main.ts), nodemailer as the client. What must hold: the answer is the temporary
 * `451 4.3.0`, so the client keeps the message; its retry once the database is back is accepted, and the message
 * exists once.
 */
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import { activitiesFrom, startStack, startTcpProxy, type Stack } from "./harness";

let stack: Stack;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
beforeAll(async () => {
  const db = new URL(process.env.DATABASE_URL!);
  proxy = await startTcpProxy({ host: db.hostname, port: Number(db.port || 5432) });
  db.hostname = "127.0.0.1";
  db.port = String(proxy.port);
  stack = await startStack({ mode: "child", extraEnv: { DATABASE_URL: db.toString() } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await proxy?.down();
});

const rawMessage = (from: string, to: string, messageId: string) =>
  `From: ${from}\r\nTo: ${to}\r\nSubject: while the database is down\r\nMessage-ID: ${messageId}\r\n` +
  `Content-Type: text/plain\r\n\r\nheld by the client until we can store it\r\n`;

/** One SMTP conversation with nodemailer's connection: AUTH, MAIL, RCPT and DATA, with `onData` before the end. */
function sendPaused(
  opts: { port: number; cert: string; key: string },
  envelope: { from: string; to: string[] },
  raw: string,
  beforeEnd: () => Promise<void>,
): Promise<{ response?: string; responseCode?: number }> {
  const conn = new SMTPConnection({
    host: "127.0.0.1",
    port: opts.port,
    requireTLS: true,
    tls: { ca: [opts.cert] },
  });
  let started = false;
  // read() is first called once the relay answered DATA with 354: the envelope was accepted with the database up
  const body = new Readable({
    read() {
      if (started) return;
      started = true;
      this.push(raw.slice(0, 40));
      beforeEnd().then(
        () => {
          this.push(raw.slice(40));
          this.push(null);
        },
        (err: Error) => this.destroy(err),
      );
    },
  });
  return new Promise((resolve) => {
    conn.on("error", (err: { response?: string; responseCode?: number }) => resolve(err));
    conn.connect(() =>
      conn.login({ user: "apikey", pass: opts.key }, (err) => {
        if (err) return resolve(err as { response?: string });
        conn.send(envelope, body, (e, info) => {
          conn.quit();
          resolve(e ? (e as { response?: string; responseCode?: number }) : info);
        });
      }),
    );
  });
}

describe("smtp-relay with the database down", () => {
  it("answers 451 4.3.0, then accepts the client's retry once the database is back, once", async () => {
    const project = await stack.makeProject();
    const messageId = `<db-down-${randomUUID()}@client.example>`;
    const raw = rawMessage(project.sender, "held@example.com", messageId);

    const answer = await sendPaused(
      { port: stack.relay.smtpPort, cert: stack.cert, key: project.testKey },
      { from: project.sender, to: ["held@example.com"] },
      raw,
      () => proxy.down(),
    );
    expect(answer.responseCode).toBe(451);
    expect(answer.response).toMatch(/^451 4\.3\.0 /);

    // a new connection while it is still down: refused as temporary too (AUTH cannot look the key up), never 5xx
    const fresh = await stack
      .transport(project.testKey)
      .sendMail({ envelope: { from: project.sender, to: ["held@example.com"] }, raw })
      .then(
        () => ({ responseCode: 250 }),
        (e: { responseCode?: number }) => e,
      );
    expect(fresh.responseCode).toBeGreaterThanOrEqual(400);
    expect(fresh.responseCode).toBeLessThan(500);

    // the database is back: the client's retry (same message, same Message-ID) is accepted
    await proxy.up();
    const retry = await stack
      .transport(project.testKey)
      .sendMail({ envelope: { from: project.sender, to: ["held@example.com"] }, raw });
    const activities = await activitiesFrom(stack.db, project);
    expect(activities).toHaveLength(1);
    expect(retry.response).toBe(`250 2.0.0 queued as ${activities[0]!.id}`);
    expect((await fetch(`http://127.0.0.1:${stack.env.PORT}/healthz`)).status).toBe(200);
  }, 60_000);
});
