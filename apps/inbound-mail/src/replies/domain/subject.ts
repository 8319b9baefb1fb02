/**
 * Reply and forward prefixes of the common clients and languages: Re, Fwd, Fw, AW (German Antwort), WG
 * (Weitergeleitet), SV (Scandinavian), VS, Antw, Réf, RE[2] / Re(2) / Re^2 counters, and the bracketed
 * `[EXT]`-style tags some gateways add. Stripped repeatedly from the front.
 */
const PREFIX =
  /^\s*(?:(?:re|fwd?|aw|wg|sv|vs|antw|antwort|rif|tr|odp|enc|res|doorst|vb|ynt|حول|回复|回覆|转发|答复)\s*(?:\[\d+\]|\(\d+\)|\^\d+)?\s*[:：]|\[(?:ext|external|spam)\]|\*\*\*?spam\*\*\*?)\s*/iu;

/** The subject as the thread-matching key: prefixes stripped, whitespace collapsed, lower-cased. */
export function normalizeSubject(subject: string | undefined | null): string {
  let s = (subject ?? "").normalize("NFC");
  for (let i = 0; i < 20; i++) {
    const next = s.replace(PREFIX, "");
    if (next === s) break;
    s = next;
  }
  return s.replace(/\s+/g, " ").trim().toLowerCase().slice(0, 500);
}
