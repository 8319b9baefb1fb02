/**
 * AUTH failures throttled per client IP and per (username, password), as clients see it: nodemailer over
 * STARTTLS from several loopback addresses (127.0.0.2, .3, … are this machine too). Real: PostgreSQL, RabbitMQ,
 * s3rver, the relay in-process with a limit of 3 failures.
 */
import nodemailer from "nodemailer";
import { startStack, type Stack } from "./harness";
import type { TestProject } from "@emailsvc/testing";

let stack: Stack;
let project: TestProject;
beforeAll(async () => {
  stack = await startStack({ extraEnv: { SMTP_AUTH_MAX_FAILURES: "3" } });
  project = await stack.makeProject();
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

/** The answer to one message sent from `from` (a loopback address) with this username and password. */
async function attempt(from: string, user: string, pass: string): Promise<number> {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: stack.relay.smtpPort,
    requireTLS: true,
    localAddress: from,
    auth: { user, pass },
    tls: { ca: [stack.cert] },
  });
  try {
    await transport.sendMail({ from: project.sender, to: "a@example.com", subject: "x", text: "x" });
    return 250;
  } catch (err) {
    return (err as { responseCode?: number }).responseCode ?? -1;
  } finally {
    transport.close();
  }
}

const revoked = `sk_live_${"ab".repeat(32)}`;

describe("smtp-relay AUTH throttling", () => {
  it("throttles one username and password failing from many addresses, and never a working key", async () => {
    for (const ip of ["127.0.0.2", "127.0.0.3", "127.0.0.4"])
      expect(await attempt(ip, "wordpress", revoked)).toBe(535);
    // the same credential from a fresh address: refused before it is looked up, temporarily
    expect(await attempt("127.0.0.5", "wordpress", revoked)).toBe(454);
    expect(await attempt("127.0.0.5", "WordPress", revoked)).toBe(454);
    // that address and that username with a working key are not locked out
    expect(await attempt("127.0.0.5", "wordpress", project.testKey)).toBe(250);

    // nor is everyone using `apikey`, after failures with it from many addresses
    for (const ip of ["127.0.0.6", "127.0.0.7", "127.0.0.8"])
      expect(await attempt(ip, "apikey", `sk_test_${ip.replace(/\./g, "")}`)).toBe(535);
    expect(await attempt("127.0.0.9", "apikey", project.testKey)).toBe(250);
  });

  it("throttles one address whatever it tries, and only that address", async () => {
    for (let i = 0; i < 3; i++)
      expect(await attempt("127.0.0.10", `user${i}`, `sk_test_guess${i}`)).toBe(535);
    expect(await attempt("127.0.0.10", "apikey", project.testKey)).toBe(454);
    expect(await attempt("127.0.0.11", "apikey", project.testKey)).toBe(250);
  });
});
