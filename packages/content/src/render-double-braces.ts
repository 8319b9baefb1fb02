import { escapeHtml } from "./escape-html";
import { lookup, stringify } from "./lookup";

/** Longest text a rendering may produce: the send endpoints' own cap on an HTML or text body (spec 8 sizes). */
export const MAX_RENDERED_LENGTH = 5_000_000;

/**
 * A rendering past MAX_RENDERED_LENGTH (or, for loops, past MAX_RENDER_STEPS): `{{a}}` written a million times
 * with a 1 kB value would otherwise build a gigabyte string and take the process down with it.
 */
export class RenderLimitError extends Error {
  /** `reason` completes "<field> is …", e.g. "html_body is longer than 5,000,000 characters once rendered". */
  constructor(
    reason = `longer than ${MAX_RENDERED_LENGTH.toLocaleString("en-US")} characters once rendered`,
  ) {
    super(reason);
    this.name = "RenderLimitError";
  }
}

export interface Rendered {
  text: string;
  /** Variable names the text referenced, first-seen order. */
  variablesUsed: string[];
}

const DOUBLE = /\{\{\s*([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\s*\}\}/g;

/**
 * `{{variable}}` substitution of POST /v1/send-email and the internal POST /send-email (spec 2, 4.1, 4.4).
 * In HTML the value is escaped; a missing variable renders as the empty string. Throws RenderLimitError past
 * MAX_RENDERED_LENGTH.
 */
export function renderDoubleBraces(
  input: string,
  data: Record<string, unknown> | undefined,
  opts: { html: boolean },
): Rendered {
  const used = new Set<string>();
  let length = input.length;
  const text = input.replace(DOUBLE, (m: string, name: string) => {
    used.add(name);
    const value = stringify(lookup(data ?? {}, name));
    const out = opts.html ? escapeHtml(value) : value;
    length += out.length - m.length;
    if (length > MAX_RENDERED_LENGTH) throw new RenderLimitError();
    return out;
  });
  return { text, variablesUsed: [...used] };
}
