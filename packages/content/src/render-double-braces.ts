import { escapeHtml } from "./escape-html";
import { lookup, stringify } from "./lookup";

export interface Rendered {
  text: string;
  /** Variable names the text referenced, first-seen order. */
  variablesUsed: string[];
}

const DOUBLE = /\{\{\s*([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\s*\}\}/g;

/**
 * `{{variable}}` substitution of POST /v1/send-email and the internal POST /send-email (spec 2, 4.1, 4.4).
 * In HTML the value is escaped; a missing variable renders as the empty string.
 */
export function renderDoubleBraces(
  input: string,
  data: Record<string, unknown> | undefined,
  opts: { html: boolean },
): Rendered {
  const used: string[] = [];
  const text = input.replace(DOUBLE, (_m, name: string) => {
    if (!used.includes(name)) used.push(name);
    const value = stringify(lookup(data ?? {}, name));
    return opts.html ? escapeHtml(value) : value;
  });
  return { text, variablesUsed: used };
}
