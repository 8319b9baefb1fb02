// email-reply-parser 2.x is an ES module whose default export is the class (TOOLCHAIN.md); Node 20.20 loads it
// with require(). Its optional re2 dependency is not installed: it falls back to RegExp.
const loaded = require("email-reply-parser") as {
  default: new () => { parseReply(text: string): string };
};
const EmailReplyParser = loaded.default;

/**
 * "… wrote:" in the languages of the common clients (Gmail, Apple Mail, Outlook mobile, Thunderbird): English,
 * German, Dutch, French, Spanish, Italian, Scandinavian, Polish, Portuguese, Russian, Ukrainian, Finnish,
 * Hungarian, Turkish, Vietnamese, Czech, Romanian, Greek, Chinese.
 */
const VERB =
  "(?:wrote|writes|schrieb|schreef|geschreven|a\\s+écrit|a\\s+ecrit|escribió|escribio|ha\\s+scritto|scrisse|skrev|skriver|" +
  "napisał(?:\\(a\\))?|napisała|napsal|escreveu|написал(?:\\(а\\))?|написала|пише|kirjoitti|írta|yazdı|đã\\s+viết|" +
  "a\\s+scris|έγραψε|写道|寫道)";
const VERB_AT_END = new RegExp(`${VERB}\\s*:?\\s*-*\\s*$`, "iu");
const VERB_ANYWHERE = new RegExp(`(?:^|\\s)${VERB}(?:\\s|$)`, "iu");
/** `2016-10-24 15:36 GMT+02:00 Foo <foo@bar>:`, `2013/7/20 sam <info@x.org>`: Gmail's date-first header. */
const DATE_ADDRESS = /^\s*\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b.{0,120}<?\s*[^\s<>]+@[^\s<>]+?\s*>?\s*:?\s*$/u;
/** Outlook's header block: its first line, and the lines that follow it within a few lines. */
const FROM_LINE =
  /^\s*\*?\s*(?:from|von|de|da|van|från|fra|od|от|lähettäjä|feladó|expéditeur|afzender)\s*:?\s*\*?\s*:/iu;
const BLOCK_LINE =
  /^\s*\*?\s*(?:sent|gesendet|envoyé|enviado|inviato|verzonden|skickat|sendt|wysłano|wysłane|отправлено|date|datum|fecha|data|lähetetty|elküldve|to|an|à|para|a|aan|till|til|do|кому|risposta|subject|betreff|objet|asunto|oggetto|onderwerp|ämne|emne|temat|тема|cc)\s*:?\s*\*?\s*:/iu;
/** `-----Original Message-----` and its translations, forwarded-message banners. */
const SEPARATOR = new RegExp(
  "^\\s*\\*?\\s*-{2,}\\s*(?:original message|ursprüngliche nachricht|original-nachricht|message d'origine|" +
    "mensaje original|messaggio originale|oorspronkelijk bericht|oprindelig meddelelse|opprinnelig melding|" +
    "ursprungligt meddelande|alkuperäinen viesti|wiadomość oryginalna|исходное сообщение|mensagem original|" +
    "forwarded message|weitergeleitete nachricht)\\s*-{2,}\\s*\\*?\\s*$",
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

/**
 * The first line of a quote header of the "On <date>, <name> wrote:" kind that ends on line k (it may wrap over
 * up to six lines): the shortest such header, so the reply's own last lines never count as part of it.
 */
function wroteHeaderEndingAt(lines: string[], k: number): number | null {
  for (let i = k; i >= Math.max(0, k - 5); i--) {
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
  if (!FROM_LINE.test(lines[i]!)) return false;
  for (let k = i + 1; k < Math.min(lines.length, i + 4); k++) if (BLOCK_LINE.test(lines[k]!)) return true;
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
    const shared = /^(.*\S)\s+(On\s.{5,200}\bwrote:)\s*$/.exec(line);
    if (shared && /\d/.test(shared[2]!) && !/^On\s/.test(line.trim()))
      return { line: i, end: i, keep: shared[1]! };
    if (SEPARATOR.test(line) || outlookBlockAt(lines, i)) return { line: i, end: i };
    if (!line.trim().startsWith(">") || /^>\s*wrote:/i.test(line.trim())) {
      const header = wroteHeaderEndingAt(lines, i);
      if (header !== null) return { line: header, end: i };
    }
  }
  return null;
}

/**
 * The new text of a reply: what the sender wrote above the quoted history, without the signature. The quote
 * header is found first (English, German, French, Spanish and the other languages above; Gmail, Outlook, Apple
 * Mail and Thunderbird styles), then email-reply-parser removes what is left of quotes and the signature.
 */
export function replyText(text: string): string {
  if (!text.trim()) return "";
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const start = quoteStart(lines);
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
  const parsed = new EmailReplyParser().parseReply(above).trim();
  return parsed || above.trim();
}
