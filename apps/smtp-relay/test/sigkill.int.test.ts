/**
 * The relay as a child process (its own main.ts), SIGKILLed while messages are in DATA. Real: PostgreSQL,
 * RabbitMQ, s3rver, the relay process, nodemailer and a raw SMTP socket as clients. What must hold, as a client
 * sees it: a message answered 250 is in the send model and its send request is published (by the restarted
 * relay's outbox relay when the killed one had not yet); a message without a 250 is sent again by its client, and
 * then exists once, whether or not the killed relay had committed it before dying.
 */
import { randomUUID } from "node:crypto";
import net from "node:net";
import { activitiesFrom, startStack, type Stack, waitFor } from "./harness";

let stack: Stack;
beforeAll(async () => {
  // the raw client below speaks plain SMTP from loopback: the development exception to the TLS rule
  stack = await startStack({ mode: "child", extraEnv: { SMTP_ALLOW_INSECURE_AUTH: "true" } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

/** A minimal SMTP client: each `send` writes a line and waits for the reply (its last line). */
function rawClient(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  let buffer = "";
  const waiters: ((line: string) => void)[] = [];
  socket.setEncoding("utf8");
  socket.on("data", (d: string) => {
    buffer += d;
    let i;
    while ((i = buffer.indexOf("\r\n")) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      if (/^\d{3} /.test(line)) waiters.shift()?.(line);
    }
  });
  const closed = new Promise<void>((r) => socket.once("close", () => r()));
  socket.on("error", () => {});
  const reply = () => new Promise<string>((r) => waiters.push(r));
  return {
    greeting: reply(),
    async send(line: string) {
      const next = reply();
      socket.write(`${line}\r\n`);
      return next;
    },
    write: (data: string) => socket.write(data),
    closed,
    /** Resolves with the next reply, or null when the connection closes first. */
    nextReply: () => Promise.race([reply(), closed.then(() => null)]),
  };
}

const message = (from: string, to: string, messageId: string, body = "hello") =>
  `From: ${from}\r\nTo: ${to}\r\nSubject: kill test\r\nMessage-ID: ${messageId}\r\n\r\n${body}\r\n`;

describe("smtp-relay killed with SIGKILL", () => {
  it("loses nothing it acknowledged and duplicates nothing its clients sent again", async () => {
    const project = await stack.makeProject();
    const mail = (i: number) => ({
      from: project.sender,
      to: `r${i}@example.com`,
      subject: `burst ${i}`,
      text: `message ${i}`,
      messageId: `<burst-${i}-${randomUUID()}@client.example>`,
    });

    // 1. One message stopped half-way through DATA: the relay has answered 354 and holds part of it.
    const stalledId = `<stalled-${randomUUID()}@client.example>`;
    const raw = rawClient(stack.relay.smtpPort);
    expect(await raw.greeting).toMatch(/^220 /);
    expect(await raw.send("EHLO client.example")).toMatch(/^250 /);
    const plain = Buffer.from(`\0apikey\0${project.testKey}`).toString("base64");
    expect(await raw.send(`AUTH PLAIN ${plain}`)).toMatch(/^235 /);
    expect(await raw.send(`MAIL FROM:<${project.sender}>`)).toMatch(/^250 /);
    expect(await raw.send("RCPT TO:<stalled@example.com>")).toMatch(/^250 /);
    expect(await raw.send("DATA")).toMatch(/^354 /);
    raw.write(message(project.sender, "stalled@example.com", stalledId).slice(0, 60));

    // 2. A burst over 10 connections at once, each client sending its messages one after the other.
    const messages = Array.from({ length: 60 }, (_, i) => mail(i));
    const acknowledged = new Set<number>();
    const clients = Array.from({ length: 10 }, async (_, c) => {
      const transport = stack.transport(project.testKey);
      for (let i = c; i < messages.length; i += 10) {
        try {
          const info = await transport.sendMail(messages[i]!);
          if (/^250 2\.0\.0 queued as /.test(info.response)) acknowledged.add(i);
        } catch {
          return; // the relay died: this client stops, and will send its unanswered messages again
        }
      }
    });
    await waitFor(() => acknowledged.size >= 10, 30_000, "part of the burst to be acknowledged");
    const killedRelay = stack.relay;
    killedRelay.child!.kill("SIGKILL");
    await killedRelay.stop();
    await Promise.all(clients);
    expect(await raw.nextReply()).toBeNull(); // the stalled message was never answered
    expect(acknowledged.size).toBeLessThan(messages.length); // the kill landed mid-burst
    const committedBeforeRestart = new Set((await activitiesFrom(stack.db, project)).map((a) => a.recipient));
    // every acknowledged message was committed before its 250
    for (const i of acknowledged) expect(committedBeforeRestart.has(`r${i}@example.com`)).toBe(true);
    expect(committedBeforeRestart.has("stalled@example.com")).toBe(false);

    // 3. Restart; every client sends again what was not answered (same Message-ID), as an MTA queue does.
    await stack.startRelay("child");
    const transport = stack.transport(project.testKey);
    for (let i = 0; i < messages.length; i++) {
      if (acknowledged.has(i)) continue;
      const info = await transport.sendMail(messages[i]!);
      // committed by the killed relay without its 250 reaching the client: replayed, not sent twice
      expect(info.response).toMatch(/^250 2\.0\.0 (queued as|Already queued)/);
    }
    await transport.sendMail({
      envelope: { from: project.sender, to: ["stalled@example.com"] },
      raw: message(project.sender, "stalled@example.com", stalledId),
    });

    const activities = await activitiesFrom(stack.db, project);
    const recipients = activities.map((a) => a.recipient).sort();
    const expected = [...messages.map((m) => m.to), "stalled@example.com"].sort();
    expect(recipients).toEqual(expected); // each message once
    // and every send request published, the killed relay's leftovers by the new one's outbox relay
    await waitFor(
      () => activities.every((a) => stack.published.includes(a.id)),
      30_000,
      "every send request to be published",
      100,
    );
    const replayed = committedBeforeRestart.size - acknowledged.size;
    console.log(
      `SIGKILL: ${acknowledged.size} acknowledged before the kill, ${committedBeforeRestart.size} committed, ` +
        `${replayed} committed without their 250 and replayed on retry`,
    );
  }, 180_000);
});
