import { escapeHtml } from "./escape-html";
import { lookup, stringify } from "./lookup";
import { MAX_RENDERED_LENGTH, RenderLimitError, type Rendered } from "./render-double-braces";

/*
 * The stored-template syntax of spec section 2:
 *   {variable}                 escaped substitution (nested paths: {user.name})
 *   {variable || "fallback"}   fallback when missing or empty (at most 1,000 characters)
 *   {!rawHtml}                 unescaped
 *   {{#each items}}…{{/each}}  loop, nestable; inside, {this} is the item ({this.field} a field of it), {field}
 *                              reads the item first, then the enclosing loops' items, then the variables, and
 *                              {@index} is the 0-based position in the innermost loop
 * `{{variable}}` is accepted too. Anything else in braces (CSS blocks, JSON, `{ x }` with spaces) is left as is:
 * a placeholder must be exactly an identifier path (letters of any script, digits, `_`, `-`) with no surrounding
 * spaces. A `{{#each}}` without its `{{/each}}`, or a `{{/each}}` without its opener, is text, and so is a loop
 * nested deeper than MAX_LOOP_DEPTH.
 *
 * The template is parsed once into a tree, in one linear scan, and values are written into the output, never
 * parsed again: a value that looks like a placeholder (`{!other}`, `{red}`) is data and comes out as written.
 * Throws RenderLimitError past MAX_RENDERED_LENGTH characters or MAX_RENDER_STEPS pieces.
 */
const PATH = String.raw`[\p{L}_@][\p{L}\p{N}_-]*(?:\.[\p{L}_][\p{L}\p{N}_-]*)*`;
const FALLBACK = String.raw`(?:\s*\|\|\s*"((?:[^"\\]|\\.){0,1000})")?`;
const TOKEN = new RegExp(
  [
    String.raw`\{\{#each\s+(${PATH})\s*\}\}`,
    String.raw`(\{\{\/each\}\})`,
    String.raw`\{\{\s*(!?)(${PATH})${FALLBACK}\s*\}\}`,
    String.raw`\{(!?)(${PATH})${FALLBACK}\}`,
  ].join("|"),
  "gu",
);

/** Pieces a rendering may visit: a loop of 40,000 items over a 10-piece body takes 400,000. */
export const MAX_RENDER_STEPS = 5_000_000;

/** Loops inside loops: far beyond any real template, well inside the stack the renderer recurses on. */
export const MAX_LOOP_DEPTH = 32;

interface Placeholder {
  raw: boolean;
  name: string;
  fallback: string | undefined;
}
interface Loop {
  list: string;
  body: Node[];
}
type Node = string | Placeholder | Loop;

function parseTemplate(input: string): Node[] {
  const root: Node[] = [];
  const open: { loop: Loop; opener: string; parent: Node[] }[] = [];
  let nodes = root;
  let last = 0;
  // Openers past MAX_LOOP_DEPTH kept as text: as many closers after them are text too, so the rest pair up.
  let tooDeep = 0;
  for (const m of input.matchAll(TOKEN)) {
    if (m.index > last) nodes.push(input.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] !== undefined && open.length >= MAX_LOOP_DEPTH) {
      nodes.push(m[0]);
      tooDeep++;
    } else if (m[2] !== undefined && tooDeep > 0) {
      nodes.push(m[0]);
      tooDeep--;
    } else if (m[1] !== undefined) {
      const loop: Loop = { list: m[1], body: [] };
      open.push({ loop, opener: m[0], parent: nodes });
      nodes = loop.body;
    } else if (m[2] !== undefined) {
      const closed = open.pop();
      if (!closed) {
        nodes.push(m[0]);
        continue;
      }
      closed.parent.push(closed.loop);
      nodes = closed.parent;
    } else {
      const raw = m[3] ?? m[6];
      nodes.push({ raw: raw === "!", name: (m[4] ?? m[7])!, fallback: m[5] ?? m[8] });
    }
  }
  if (last < input.length) nodes.push(input.slice(last));
  // Unclosed loops, innermost first: the opener is text and what followed it belongs to the enclosing level.
  for (let i = open.length - 1; i >= 0; i--) {
    const { loop, opener, parent } = open[i]!;
    parent.push(opener);
    for (const node of loop.body) parent.push(node); // not a spread: a body can hold more nodes than arguments
  }
  return root;
}

/** One loop level's item and position; the root level has none. */
interface Scope {
  item: unknown;
  index: number;
  parent: Scope | null;
}

export function renderTemplate(
  input: string,
  variables: Record<string, unknown> | undefined,
  opts: { html: boolean } = { html: true },
): Rendered {
  const vars = variables ?? {};
  const used = new Set<string>();
  const out: string[] = [];
  // Nested loops multiply (three levels of 1,000 items is a billion pieces), so the work is bounded as well as
  // the output.
  let length = 0;
  let steps = 0;
  const emit = (text: string): void => {
    length += text.length;
    if (length > MAX_RENDERED_LENGTH) throw new RenderLimitError();
    out.push(text);
  };

  /** A name not found on any loop item is a template variable: listed in variables_used. */
  const variable = (name: string): unknown => {
    used.add(name);
    return lookup(vars, name);
  };
  const resolve = (name: string, scope: Scope | null): unknown => {
    if (name === "@index") return scope?.index;
    if (name === "this") return scope?.item;
    if (name.startsWith("this.")) return scope ? lookup(scope.item, name.slice(5)) : undefined;
    for (let s = scope; s; s = s.parent) {
      const own = s.item !== null && typeof s.item === "object" ? lookup(s.item, name) : undefined;
      if (own !== undefined) return own;
    }
    return variable(name);
  };

  const step = (): void => {
    if (++steps > MAX_RENDER_STEPS)
      throw new RenderLimitError(
        `too much to render: its loops take more than ${MAX_RENDER_STEPS.toLocaleString("en-US")} steps`,
      );
  };
  const render = (nodes: readonly Node[], scope: Scope | null): void => {
    for (const node of nodes) {
      step();
      if (typeof node === "string") {
        emit(node);
      } else if ("list" in node) {
        const list = scope ? resolve(node.list, scope) : variable(node.list);
        if (!Array.isArray(list)) continue;
        list.forEach((item: unknown, index) => {
          // every iteration is a step, also of a loop whose body is empty
          step();
          render(node.body, { item, index, parent: scope });
        });
      } else {
        const value = resolve(node.name, scope);
        const missing = value === undefined || value === null || value === "";
        const text =
          missing && node.fallback !== undefined ? node.fallback.replace(/\\(.)/g, "$1") : stringify(value);
        emit(node.raw || !opts.html ? text : escapeHtml(text));
      }
    }
  };
  render(parseTemplate(input), null);
  return { text: out.join(""), variablesUsed: [...used] };
}
