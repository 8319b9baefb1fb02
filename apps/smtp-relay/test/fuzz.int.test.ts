/**
 * Fuzz: odd, oversized and malformed SMTP commands, and malformed MIME bodies, over raw sockets to the relay as a
 * child process (its own main.ts). Real: PostgreSQL, RabbitMQ, s3rver. What must hold: every line the relay
 * sends is a proper SMTP reply (a 2xx–5xx code, then a space or a dash), a malformed message is refused for good
 * (5xx) or accepted, never answered with the temporary 451 that stands for our own failure (the client would
 * retry it for days), and afterwards the process is alive, `/healthz` answers and a normal message is accepted.
 */
import net from "node:net";
import { startStack, type Stack } from "./harness";
import type { TestProject } from "@emailsvc/testing";

let stack: Stack;
let project: TestProject;
beforeAll(async () => {
  stack = await startStack({
    mode: "child",
    // raw sockets speak plain SMTP from loopback: the development exception to the TLS rule. The garbage AUTHs
    // below would otherwise throttle this address before the MIME cases authenticate.
    extraEnv: {
      SMTP_ALLOW_INSECURE_AUTH: "true",
      SMTP_AUTH_MAX_FAILURES: "100000",
      SMTP_IDLE_TIMEOUT_MS: "5000",
    },
  });
  project = await stack.makeProject();
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

type Step = string | Buffer | { data: string | Buffer; reply: false };
const REPLY = /^[2-5]\d\d[ -]/;

/**
 * One connection: waits for the greeting, then writes each step and waits for its reply (the last line of it: a
 * code and a space), or 2 s; steps marked `reply: false` (DATA's lines) are written without waiting. Ends with
 * QUIT. Resolves with every line received.
 */
async function converse(steps: Step[]): Promise<string[]> {
  const socket = net.connect(stack.relay.smtpPort, "127.0.0.1");
  socket.on("error", () => {});
  const lines: string[] = [];
  let buffer = "";
  let finals = 0;
  let tls = false;
  let notify: (() => void) | null = null;
  socket.on("data", (d: Buffer) => {
    buffer += d.toString("latin1");
    let i;
    while ((i = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, i).replace(/\r$/, "");
      buffer = buffer.slice(i + 1);
      if (tls) continue; // after STARTTLS's 220 the bytes are TLS records (an alert for our garbage), not SMTP
      lines.push(line);
      if (/^\d{3} /.test(line)) finals++;
      if (/^220 .*TLS/i.test(line)) tls = true;
    }
    notify?.();
  });
  const closed = new Promise<void>((r) => socket.once("close", () => r()));
  const nextFinal = (seen: number) =>
    Promise.race([
      closed,
      new Promise<void>((r) => setTimeout(r, 2_000)),
      new Promise<void>((r) => {
        notify = () => finals > seen && r();
        notify();
      }),
    ]);
  await nextFinal(0);
  for (const step of steps) {
    if (socket.destroyed) break;
    const data = typeof step === "object" && !Buffer.isBuffer(step) ? step.data : step;
    const seen = finals;
    socket.write(typeof data === "string" ? `${data}\r\n` : data);
    if (typeof step === "object" && !Buffer.isBuffer(step)) continue;
    await nextFinal(seen);
  }
  if (!socket.destroyed) socket.write("QUIT\r\n");
  await Promise.race([closed, new Promise((r) => setTimeout(r, 3_000))]);
  socket.destroy();
  if (buffer && !tls) lines.push(buffer);
  return lines;
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
const login = () => ["EHLO fuzz.example", `AUTH PLAIN ${b64(`\0apikey\0${project.testKey}`)}`];
const envelope = () => [...login(), `MAIL FROM:<${project.sender}>`, "RCPT TO:<fuzz@example.com>"];
/** A message's lines sent after DATA, then the end of data. */
const data = (body: string | Buffer): Step[] => [
  "DATA",
  { data: typeof body === "string" ? body.replace(/\r?\n/g, "\r\n") : body, reply: false },
  "\r\n.",
];
const head = (extra = "") =>
  `From: ${project.sender}\nTo: fuzz@example.com\nSubject: fuzz\nMessage-ID: <${Math.random()}@fuzz>\n${extra}`;

const COMMAND_CASES: Record<string, () => Step[]> = {
  "EHLO and HELO without a name": () => ["EHLO", "HELO", "EHLO  ", "LHLO x"],
  "an EHLO name of 10,000 characters": () => [`EHLO ${"a".repeat(10_000)}`],
  "AUTH with garbage base64": () => ["EHLO x", "AUTH PLAIN !!!not-base64***", `AUTH PLAIN ${b64("\0\0\0")}`],
  "AUTH PLAIN with binary and oversized credentials": () => [
    "EHLO x",
    `AUTH PLAIN ${b64(Buffer.from([0xff, 0, 0xfe, 0, 0x80]))}`,
    `AUTH PLAIN ${b64(`\0apikey\0${"k".repeat(50_000)}`)}`,
  ],
  "AUTH LOGIN with garbage answers, and cancelled": () => [
    "EHLO x",
    "AUTH LOGIN",
    "%%%",
    "&&&",
    "AUTH LOGIN",
    "*",
  ],
  "AUTH with unknown or no mechanism": () => [
    "EHLO x",
    "AUTH CRAM-MD5",
    "AUTH",
    "AUTH XOAUTH2 abc",
    "AUTH PLAIN",
  ],
  "MAIL FROM before AUTH and with bad addresses": () => [
    "EHLO x",
    "MAIL FROM:<not an address>",
    ...login(),
    "MAIL FROM:<not an address>",
    "MAIL FROM:<>",
    "MAIL FROM:",
    "MAIL FROM:<@>",
    "MAIL FROM:<a@b> SIZE=99999999999999999999",
    "MAIL FROM:<a@b> BODY=WEIRD SMTPUTF8 FOO=BAR",
    `MAIL FROM:<${"a".repeat(2_000)}@x.example>`,
    `MAIL FROM:<${project.sender}>`,
    `MAIL FROM:<${project.sender}>`,
  ],
  "RCPT before MAIL, DATA before RCPT, BDAT": () => [
    "EHLO x",
    "RCPT TO:<a@example.com>",
    "DATA",
    ...login(),
    "RCPT TO:<a@example.com>",
    "DATA",
    `MAIL FROM:<${project.sender}>`,
    "DATA",
    "BDAT 10 LAST",
    "BDAT",
    "RCPT TO:<not an address>",
    "RCPT TO:<>",
    `RCPT TO:<${"r".repeat(3_000)}@example.com>`,
  ],
  "unknown and disabled commands": () => [
    "FOO",
    "VRFY root",
    "EXPN list",
    "ETRN x",
    "TURN",
    "HELP",
    "NOOP",
    "RSET",
  ],
  "NUL bytes": () => [
    Buffer.from("EHLO a\0b\r\n"),
    Buffer.from("\0\0\0\0\r\n"),
    Buffer.from("MAIL FROM:<a\0@b.example>\r\n"),
  ],
  "8-bit bytes": () => [
    Buffer.concat([
      Buffer.from("EHLO "),
      Buffer.from(Array.from({ length: 128 }, (_, i) => 128 + i)),
      Buffer.from("\r\n"),
    ]),
    Buffer.from("MAIL FROM:<ünïcødé@exämple.com>\r\n", "utf8"),
  ],
  "a line of 100,000 bytes": () => [`${"X".repeat(100_000)}`],
  "a command line with no end": () => [{ data: "EHLO ".padEnd(200_000, "y"), reply: false }, "EHLO x"],
  "bare LF and bare CR line endings": () => [Buffer.from("EHLO a\nNOOP\n"), Buffer.from("NOOP\rNOOP\r\n")],
  "a pipelined burst": () => [
    "EHLO x",
    "NOOP\r\n".repeat(300) + `RSET\r\nMAIL FROM:<${project.sender}>\r\nRCPT TO:<a@example.com>\r\nRSET`,
  ],
  "STARTTLS, then garbage instead of a TLS handshake": () => [
    "EHLO x",
    "STARTTLS",
    Buffer.from([0x16, 3, 1, 0xff, 0xff, 0, 1, 2]),
  ],
  "a second EHLO mid-transaction and RSET": () => [...envelope(), "EHLO again", "RSET", "DATA"],
};

const MIME_CASES: Record<string, () => Step[]> = {
  "broken boundaries": () => [
    ...envelope(),
    ...data(
      head('Content-Type: multipart/mixed; boundary="abc"\n') +
        "\n--abd\nContent-Type: text/plain\n\nhello\n--abc\nContent-Type: text/html\n\n<p>x\n--ab",
    ),
  ],
  "multipart without a boundary": () => [
    ...envelope(),
    ...data(head("Content-Type: multipart/alternative\n") + "\nbody\n"),
  ],
  "bad base64 and bad quoted-printable": () => [
    ...envelope(),
    ...data(
      head('Content-Type: multipart/mixed; boundary="b"\n') +
        "\n--b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n!!!@@@###$$$%%%\n" +
        "--b\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n=ZZ=\n=\n=4\n" +
        '--b\nContent-Type: application/pdf; name="x.pdf"\nContent-Disposition: attachment; filename="x.pdf"\n' +
        "Content-Transfer-Encoding: base64\n\n****====\n--b--\n",
    ),
  ],
  "multipart nested 300 deep": () => {
    let body = "Content-Type: text/plain\n\ndeep\n";
    for (let i = 0; i < 300; i++)
      body = `Content-Type: multipart/mixed; boundary="n${i}"\n\n--n${i}\n${body}--n${i}--\n`;
    return [...envelope(), ...data(head() + body)];
  },
  "a 1 MB header and 5,000 header lines": () => [
    ...envelope(),
    ...data(head(`X-Big: ${"h".repeat(1024 * 1024)}\n${"X-Many: v\n".repeat(5_000)}`) + "\nbody\n"),
  ],
  "a header folded 10,000 times": () => [
    ...envelope(),
    ...data(head(`X-Folded: a${"\n b".repeat(10_000)}\n`) + "\nbody\n"),
  ],
  "no From: header, and a garbage one": () => [
    ...envelope(),
    ...data("To: fuzz@example.com\nSubject: x\n\nbody\n"),
    `MAIL FROM:<${project.sender}>`,
    "RCPT TO:<fuzz@example.com>",
    ...data("From: <<<@@>>> ,,, \nTo: =?utf-8?B?!!!?=\nSubject: =?x-unknown?Q?=ZZ?=\n\nbody\n"),
  ],
  "unknown charsets, content types and encodings": () => [
    ...envelope(),
    ...data(
      head('Content-Type: text/plain; charset="x-unknown-ÿ"\nContent-Transfer-Encoding: x-uuencode-ish\n') +
        "\nbody\n",
    ),
    `MAIL FROM:<${project.sender}>`,
    "RCPT TO:<fuzz@example.com>",
    ...data(head("Content-Type: /\n") + "\nbody\n"),
  ],
  "an attachment with a 10,000-character filename and no content type": () => [
    ...envelope(),
    ...data(
      head('Content-Type: multipart/mixed; boundary="b"\n') +
        `\n--b\nContent-Type: text/plain\n\nhi\n--b\nContent-Disposition: attachment; filename="${"f".repeat(10_000)}.pdf"\n\n%PDF\n--b--\n`,
    ),
  ],
  "NUL bytes, bare CR and 8-bit in the body": () => [
    ...envelope(),
    ...data(
      Buffer.concat([
        Buffer.from(head().replace(/\n/g, "\r\n") + "\r\n"),
        Buffer.from([0, 0, 13, 0x80, 0xff, 0xfe, 13, 10, 0x2e, 0x2e, 13, 10]),
        Buffer.from("Subject: \u00ff\r\nend"),
      ]),
    ),
  ],
  "an empty message": () => [...envelope(), "DATA", "."],
  "DATA cut off by the connection closing": () => [
    ...envelope(),
    "DATA",
    { data: head() + "\r\nno end", reply: false },
  ],
};

const cases = (table: Record<string, () => Step[]>) =>
  Object.entries(table).map(([name, steps]) => [name, steps] as const);

describe("smtp-relay fuzz", () => {
  it.each(cases(COMMAND_CASES))("commands: %s get proper SMTP replies", async (_name, steps) => {
    const lines = await converse(steps());
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(REPLY);
  });

  it.each(cases(MIME_CASES))("malformed MIME: %s is refused or accepted, never 451", async (_name, steps) => {
    const lines = await converse(steps());
    for (const line of lines) expect(line).toMatch(REPLY);
    expect(lines.filter((l) => /^4/.test(l))).toEqual([]);
  });

  it("is alive afterwards: /healthz answers and a normal message is accepted", async () => {
    const child = stack.relay.child!;
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${stack.env.PORT}/healthz`)).status).toBe(200);
    const info = await stack.transport(project.testKey).sendMail({
      from: project.sender,
      to: "after-fuzz@example.com",
      subject: "still here",
      text: "hello",
    });
    expect(info.response).toMatch(/^250 2\.0\.0 queued as /);
  });
});
