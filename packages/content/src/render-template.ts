import { escapeHtml } from "./escape-html";
import { lookup, stringify } from "./lookup";
import type { Rendered } from "./render-double-braces";

/*
 * The stored-template syntax of spec section 2:
 *   {variable}                 escaped substitution (nested paths: {user.name})
 *   {variable || "fallback"}   fallback when missing or empty
 *   {!rawHtml}                 unescaped
 *   {{#each items}}…{{/each}}  loop; inside, {this} is the item, {field} reads the item first, then the outer
 *                              variables, and {@index} is the 0-based position
 * `{{variable}}` is accepted too. Anything else in braces (CSS blocks, JSON, `{ x }` with spaces) is left as is:
 * a placeholder must be exactly an identifier path with no surrounding spaces.
 */
const PATH = String.raw`[A-Za-z_@][\w-]*(?:\.[A-Za-z_][\w-]*)*`;
const PLACEHOLDER = new RegExp(
  String.raw`\{\{\s*(!?)(${PATH})(?:\s*\|\|\s*"((?:[^"\\]|\\.)*)")?\s*\}\}|\{(!?)(${PATH})(?:\s*\|\|\s*"((?:[^"\\]|\\.)*)")?\}`,
  "g",
);
const EACH = /\{\{#each\s+([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\s*\}\}([\s\S]*?)\{\{\/each\}\}/g;

function substitute(input: string, scope: (name: string) => unknown, used: string[], html: boolean): string {
  return input.replace(
    PLACEHOLDER,
    (
      _m,
      raw1: string,
      name1: string,
      fb1: string | undefined,
      raw2: string,
      name2: string,
      fb2: string | undefined,
    ) => {
      const raw = (raw1 ?? raw2) === "!";
      const name = (name1 ?? name2)!;
      const fallback = fb1 ?? fb2;
      if (!name.startsWith("@") && name !== "this" && !used.includes(name)) used.push(name);
      const value = scope(name);
      const missing = value === undefined || value === null || value === "";
      const text = missing && fallback !== undefined ? fallback.replace(/\\(.)/g, "$1") : stringify(value);
      return raw || !html ? text : escapeHtml(text);
    },
  );
}

export function renderTemplate(
  input: string,
  variables: Record<string, unknown> | undefined,
  opts: { html: boolean } = { html: true },
): Rendered {
  const vars = variables ?? {};
  const used: string[] = [];
  const withLoops = input.replace(EACH, (_m, listName: string, body: string) => {
    if (!used.includes(listName)) used.push(listName);
    const list = lookup(vars, listName);
    if (!Array.isArray(list)) return "";
    return list
      .map((item: unknown, index) =>
        substitute(
          body,
          (name) => {
            if (name === "this") return item;
            if (name === "@index") return index;
            const own = item !== null && typeof item === "object" ? lookup(item, name) : undefined;
            return own !== undefined ? own : lookup(vars, name);
          },
          [],
          opts.html,
        ),
      )
      .join("");
  });
  const text = substitute(withLoops, (name) => lookup(vars, name), used, opts.html);
  return { text, variablesUsed: used };
}
