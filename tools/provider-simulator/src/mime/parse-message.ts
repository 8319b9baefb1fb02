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

/** Header facts only; body conversions are skipped because this runs once per simulated send. */
export async function parseMessage(raw: Buffer | string): Promise<ParsedHeaders> {
  const parsed = await simpleParser(raw, {
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
