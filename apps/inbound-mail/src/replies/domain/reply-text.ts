import { runWithinBudget } from "./run-within-budget";

// email-reply-parser 2.x is an ES module whose default export is the class (TOOLCHAIN.md); Node 20.20 loads it
// with require(). Its optional re2 dependency is not installed: it falls back to RegExp, whose patterns backtrack
// (`/^(.+\son.*at.*wrote:)$/m` is cubic in a line's length), so it runs under a time budget (below).
const loaded = require("email-reply-parser") as {
  default: new () => { parseReply(text: string): string };
};
const EmailReplyParser = loaded.default;

/**
 * Bounds on the work one reply costs (issue 49: a reply of one 105,000-space line held the event loop for 22 s).
 * The quote header is looked for in the first MAX_TEXT characters only; a line longer than MAX_LINE is text (no
 * header, banner, quote mark or signature is that long) and is hidden from the parser; the parser gets
 * PARSER_BUDGET_MS, after which the text above the quote header is the reply as it is.
 */
export const REPLY_LIMITS = { maxText: 64 * 1024, maxLine: 1000, parserBudgetMs: 100 } as const;

/**
 * "… wrote:" in the languages of the common clients (Gmail, Apple Mail, Outlook mobile, Thunderbird): English,
 * German, Dutch, French, Spanish, Italian, Scandinavian, Polish, Portuguese, Russian, Ukrainian, Finnish,
 * Hungarian, Turkish, Vietnamese, Czech, Romanian, Greek, Chinese.
 */
const VERB =
  "(?:wrote|writes|schrieb|schreef|geschreven|a\\s+écrit|a\\s+ecrit|escribió|escribio|ha\\s+scritto|scrisse|skrev|skriver|" +
  "napisał(?:\\(a\\))?|napisała|napsal|escreveu|написал(?:\\(а\\))?|написала|пише|kirjoitti|írta|yazdı|đã\\s+viết|" +
  "a\\s+scris|έγραψε|写道|寫道)";
// No two unbounded quantifiers below can match the same characters (each `\s*` follows a literal), so a line of
// spaces costs linear time, not the square or cube of its length.
const VERB_AT_END = new RegExp(`${VERB}\\s*(?::\\s*)?(?:-+\\s*)?$`, "iu");
const VERB_ANYWHERE = new RegExp(`(?:^|\\s)${VERB}(?:\\s|$)`, "iu");
/** `2016-10-24 15:36 GMT+02:00 Foo <foo@bar>:`, `2013/7/20 sam <info@x.org>`: Gmail's date-first header. */
const DATE_ADDRESS =
  /^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b.{0,120}<?\s*[^\s<>]+@[^\s<>]+?\s*(?:>\s*)?(?::\s*)?$/u;
/** Outlook's header block: its first line, and the lines that follow it within a few lines (tested trimmed). */
const FROM_LINE =
  /^(?:\*\s*)?(?:from|von|de|da|van|från|fra|od|от|lähettäjä|feladó|expéditeur|afzender)\s*(?::\s*)?(?:\*\s*)?:/iu;
const BLOCK_LINE =
  /^(?:\*\s*)?(?:sent|gesendet|envoyé|enviado|inviato|verzonden|skickat|sendt|wysłano|wysłane|отправлено|date|datum|fecha|data|lähetetty|elküldve|to|an|à|para|a|aan|till|til|do|кому|risposta|subject|betreff|objet|asunto|oggetto|onderwerp|ämne|emne|temat|тема|cc)\s*(?::\s*)?(?:\*\s*)?:/iu;
/** `-----Original Message-----` and its translations, forwarded-message banners (tested trimmed). */
const SEPARATOR = new RegExp(
  "^(?:\\*\\s*)?-{2,}\\s*(?:original message|ursprüngliche nachricht|original-nachricht|message d'origine|" +
    "mensaje original|messaggio originale|oorspronkelijk bericht|oprindelig meddelelse|opprinnelig melding|" +
    "ursprungligt meddelande|alkuperäinen viesti|wiadomość oryginalna|исходное сообщение|mensagem original|" +
    "forwarded message|weitergeleitete nachricht)\\s*-{2,}(?:\\s*\\*)?$",
  "iu",
);

const MAX_HEADER = 400;

/** Whether `joined` (one or more lines of a possible header) is a whole "On <date>, <name> wrote:" header. */
function isWroteHeader(joined: string, lineCount: number): boolean {
  if (joined.length > MAX_HEADER) return false;
  const dated = /\d/.test(joined) || /@/.test(joined) || /^-{2,}/.test(joined) || /\byou\b/i.test(joined);
  if (!dated) return false;
  if (VERB_AT_END.test(joined)) return true;
  if (VERB_ANYWHERE.test(joined) && /:\s*$/.test(joined)) return true;
  return DATE_ADDRESS.test(joined) && (lineCount === 1 || /:\s*$/.test(joined));
}

/** A line short enough to be a header, banner or signature; a longer one is text and no pattern looks at it. */
const short = (line: string) => line.length <= REPLY_LIMITS.maxLine;

/**
 * The first line of a quote header of the "On <date>, <name> wrote:" kind that ends on line k (it may wrap over
 * up to six lines): the shortest such header, so the reply's own last lines never count as part of it.
 */
function wroteHeaderEndingAt(lines: string[], k: number): number | null {
  let chars = 0;
  for (let i = k; i >= Math.max(0, k - 5); i--) {
    // lines are only ever added going up: once they are longer than a header, no earlier start makes one
    chars += lines[i]!.length;
    if (chars > MAX_HEADER * 4) return null;
    const first = lines[i]!.trim();
    // a wrapped header's later lines (`<`, `mailto:`, `(`, an address) do not start one
    if (!first || /^(<|>|mailto:|\(|[^\s@<>()]+@[^\s@]+)/i.test(first)) continue;
    const joined = lines
      .slice(i, k + 1)
      .map((l) => l.trim())
      .filter(Boolean)
      .join(" ");
    if (isWroteHeader(joined, k - i + 1)) return i;
  }
  return null;
}

function outlookBlockAt(lines: string[], i: number): boolean {
  if (!FROM_LINE.test(lines[i]!.trim())) return false;
  for (let k = i + 1; k < Math.min(lines.length, i + 4); k++)
    if (short(lines[k]!) && BLOCK_LINE.test(lines[k]!.trim())) return true;
  return false;
}

/**
 * Where the quoted history starts: the first quote header ("On … wrote:" in any of the languages above, wrapped
 * or not), Outlook header block (From/Sent/To/Subject, bold or not, localised), or original-message banner.
 * A header sharing a line with the reply ("reply On … wrote:") cuts that line.
 */
function quoteStart(lines: string[]): { line: number; end: number; keep?: string } | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!short(line)) continue;
    const trimmed = line.trim();
    const shared = /^(.*\S)\s+(On\s.{5,200}\bwrote:)\s*$/.exec(line);
    if (shared && /\d/.test(shared[2]!) && !/^On\s/.test(trimmed))
      return { line: i, end: i, keep: shared[1]! };
    if (SEPARATOR.test(trimmed) || outlookBlockAt(lines, i)) return { line: i, end: i };
    if (!trimmed.startsWith(">") || /^>\s*wrote:/i.test(trimmed)) {
      const header = wroteHeaderEndingAt(lines, i);
      if (header !== null) return { line: header, end: i };
    }
  }
  return null;
}

/** A character a reply never holds (Unicode's private use area): it marks the long lines hidden from the parser. */
const HIDDEN = "\uE000";

/**
 * email-reply-parser's visible text of `above`, or null when it ran out of its budget. Lines longer than
 * REPLY_LIMITS.maxLine are handed to it as a short placeholder and put back after: none is a quote header or a
 * signature, and its own patterns (`(>+)$`, `~*$`, `.+\s.+`) cost the square of a line's length or more.
 */
function parseWithinBudget(above: string): string | null {
  const long: string[] = [];
  const masked = above.includes(HIDDEN)
    ? above
    : above
        .split("\n")
        .map((l) => (short(l) ? l : `${HIDDEN}${long.push(l.trimEnd()) - 1}${HIDDEN}`))
        .join("\n");
  const parsed = runWithinBudget(
    () => new EmailReplyParser().parseReply(masked),
    REPLY_LIMITS.parserBudgetMs,
  );
  if (parsed === null || !long.length) return parsed;
  return parsed.replace(/\uE000(\d+)\uE000/g, (_m, n: string) => long[Number(n)] ?? "");
}

/**
 * The new text of a reply: what the sender wrote above the quoted history, without the signature. The quote
 * header is found first (English, German, French, Spanish and the other languages above; Gmail, Outlook, Apple
 * Mail and Thunderbird styles), then email-reply-parser removes what is left of quotes and the signature. Only
 * the first REPLY_LIMITS.maxText characters are looked at: with no quote header in them, the whole text is the
 * reply.
 */
export function replyText(text: string): string {
  if (!text.trim()) return "";
  const head = text.length > REPLY_LIMITS.maxText ? text.slice(0, REPLY_LIMITS.maxText) : text;
  const lines = head.replace(/\r\n?/g, "\n").split("\n");
  const start = quoteStart(lines);
  if (!start && head !== text) return text.trim();
  let kept = lines;
  if (start) {
    kept = lines.slice(0, start.line);
    if (start.keep) kept.push(start.keep);
    // the separator line above an Outlook block (underscores, dashes) and blank lines
    while (kept.length && /^[\s\-_*=]*$/.test(kept[kept.length - 1]!)) kept.pop();
    // nothing above the quote: a bottom-posted reply, the text after the quoted lines
    if (!kept.length) kept = lines.slice(start.end + 1).filter((l) => !l.trimStart().startsWith(">"));
  }
  const above = kept.join("\n");
  const parsed = parseWithinBudget(above)?.trim();
  return parsed || above.trim();
}
