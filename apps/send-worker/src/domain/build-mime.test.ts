import { simpleParser } from "mailparser";
import { buildMime, type MimeInput } from "./build-mime";

const input = (over: Partial<MimeInput> = {}): MimeInput => ({
  from: { name: "Shop", address: "shop@example.com" },
  to: "ann@example.org",
  cc: [],
  replyTo: null,
  subject: "Hello",
  html: "<p>Hi</p>",
  text: "Hi",
  headers: {},
  attachments: [],
  ...over,
});
const build = async (over: Partial<MimeInput> = {}) => (await buildMime(input(over))).toString("latin1");
const head = (raw: string) => raw.slice(0, raw.indexOf("\r\n\r\n"));
const headerLines = (raw: string, name: string) =>
  head(raw)
    .split("\r\n")
    .filter((l) => l.startsWith(`${name}:`));

describe("buildMime", () => {
  it.each(["Evil $' Name", "A $` B", "$$x$&y", 'Ann "Q" \\ O\'Neil'])(
    "writes the Reply-To of spec 4.11 once, whatever the sender name holds: %s",
    async (name) => {
      const raw = await build({ replyTo: { name, address: "r-abcd1234@inbound.example" } });
      const quoted = `"${name.replace(/(["\\])/g, "\\$1")}"`;
      expect(headerLines(raw, "Reply-To")).toEqual([`Reply-To: ${quoted} <r-abcd1234@inbound.example>`]);
      for (const h of ["From", "To", "Subject", "Message-ID", "Date", "MIME-Version", "Content-Type"])
        expect({ h, n: headerLines(raw, h).length }).toEqual({ h, n: 1 });
      const parsed = await simpleParser(Buffer.from(raw, "latin1"));
      expect(parsed.replyTo?.value).toEqual([{ name, address: "r-abcd1234@inbound.example" }]);
    },
  );

  it("has no bare CR or LF anywhere: bodies are sent with CRLF line ends", async () => {
    const raw = await build({ text: "Hello\n\nWorld\n.\nbare\rcr", html: "<p>a</p>\n<p>b</p>" });
    expect(raw.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    const parsed = await simpleParser(Buffer.from(raw, "latin1"));
    expect(parsed.text).toBe("Hello\n\nWorld\n.\nbare\ncr");
  });

  it("keeps every header line within 998 characters; a long unbroken subject is encoded, not cut", async () => {
    const subject = "S".repeat(998);
    const raw = await build({ subject, replyTo: { name: "N".repeat(990), address: "r-x@in.example" } });
    expect(
      Math.max(
        ...head(raw)
          .split("\r\n")
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(998);
    const parsed = await simpleParser(Buffer.from(raw, "latin1"));
    expect(parsed.subject).toBe(subject);
    expect(parsed.replyTo?.value[0]?.name).toBe("N".repeat(990));
  });

  it("writes the Message-ID of an internationalised sender domain in ASCII", async () => {
    const raw = await build({ from: { name: null, address: "x@bücher.example" } });
    expect(headerLines(raw, "Message-ID")[0]).toMatch(/^Message-ID: <[0-9a-f-]{36}@xn--bcher-kva\.example>$/);
  });
});
