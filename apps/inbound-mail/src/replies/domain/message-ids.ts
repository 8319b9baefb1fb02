/**
 * Message-IDs as inbound-mail compares them: bare (no angle brackets, no whitespace, no comments) and lower-case.
 * mailparser gives `inReplyTo` as a string and `references` as a string or an array, each possibly holding
 * several `<id>`s; the ids a client wrote without brackets are taken as whitespace-separated words.
 */
export function normalizeMessageIds(value: string | string[] | undefined | null): string[] {
  if (!value) return [];
  const text = Array.isArray(value) ? value.join(" ") : value;
  const bracketed = [...text.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1]!);
  const ids = bracketed.length ? bracketed : text.split(/[\s,]+/);
  const out: string[] = [];
  for (const raw of ids) {
    const id = raw.trim().toLowerCase();
    if (id && id.length <= 998 && !out.includes(id)) out.push(id);
  }
  return out;
}

/** The first id of a header (In-Reply-To names one message), or null. */
export function normalizeMessageId(value: string | string[] | undefined | null): string | null {
  return normalizeMessageIds(value)[0] ?? null;
}

/** `<id>`, the form a Message-ID header and the webhook body carry. */
export const bracketed = (id: string): string => `<${id}>`;
