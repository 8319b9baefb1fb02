import { simpleParser, type AddressObject } from "mailparser";

export interface ParsedHeaders {
  from?: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  messageId?: string;
  headers: { name: string; value: string }[];
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  if (!field) return [];
  const list = Array.isArray(field) ? field : [field];
  const out: string[] = [];
  const walk = (items: AddressObject["value"]) => {
    for (const a of items) {
      if (a.address) out.push(a.address);
      if (a.group) walk(a.group);
    }
  };
  for (const obj of list) walk(obj.value);
  return out;
}

/** The header block alone (through the blank line that ends it): what SES reads to route a raw message. */
function headerBlock(raw: Buffer | string): Buffer | string {
  const text = typeof raw === "string" ? raw : raw.toString("latin1");
  const crlf = text.indexOf("\r\n\r\n");
  const lf = text.indexOf("\n\n");
  const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
  return end < 0 ? raw : raw.slice(0, end);
}

/**
 * Header facts only, from the header block only: this runs once per simulated send, and parsing the whole body
 * (every MIME part, base64 attachments) made the simulator one of the biggest CPU users of a send benchmark on
 * the same machine. The stored `raw` message stays whole for whoever reads it back.
 */
export async function parseMessage(raw: Buffer | string): Promise<ParsedHeaders> {
  const parsed = await simpleParser(headerBlock(raw), {
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    skipTextLinks: true,
  });
  const from = addresses(parsed.from)[0];
  return {
    ...(from ? { from } : {}),
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    bcc: addresses(parsed.bcc),
    subject: parsed.subject ?? "",
    ...(parsed.messageId ? { messageId: parsed.messageId } : {}),
    headers: parsed.headerLines.map((h) => {
      const i = h.line.indexOf(":");
      return {
        name: h.line.slice(0, i),
        value: h.line
          .slice(i + 1)
          .replace(/\r?\n[ \t]+/g, " ")
          .trim(),
      };
    }),
  };
}
