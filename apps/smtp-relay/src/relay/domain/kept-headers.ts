/**
 * The client's headers the send model keeps (the send-worker writes them into the message it builds): threading
 * (In-Reply-To, References) and the client's own unsubscribe link (List-Unsubscribe and its one-click companion).
 * Everything else is rebuilt: From, To, Cc, Subject and the body from the parsed message, Reply-To by the reply
 * token, Message-ID, Date and the MIME structure by the send-worker.
 */
const KEPT: Record<string, string> = {
  "in-reply-to": "In-Reply-To",
  references: "References",
  "list-unsubscribe": "List-Unsubscribe",
  "list-unsubscribe-post": "List-Unsubscribe-Post",
};

/** RFC 5322 2.1.1: a longer header line is refused by receivers; such a header is dropped rather than folded. */
const MAX_VALUE = 990;

/** From mailparser's `headerLines` (`{ key, line }`, `line` as received and folded): the kept ones, unfolded. */
export function keptHeaders(lines: readonly { key: string; line: string }[]): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const { key, line } of lines) {
    const name = KEPT[key.toLowerCase()];
    if (!name || name in out) continue;
    const value = line
      .slice(line.indexOf(":") + 1)
      .replace(/\r?\n[ \t]+/g, " ")
      .trim();
    if (
      value &&
      value.length <= MAX_VALUE &&
      ![...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)
    )
      out[name] = value;
  }
  return Object.keys(out).length ? out : null;
}
