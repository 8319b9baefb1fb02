/** Characters of JSON text scanned or parsed per event-loop turn: a few milliseconds of work. */
export const PARSE_SLICE_CHARS = 128 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** A top-level member whose value is an array, with the text offsets of its elements' separators. */
interface ArrayMember {
  keyStart: number;
  keyEnd: number;
  /** Offset of its `[` and of its `]`. */
  open: number;
  close: number;
  /** Offsets of the commas between its elements. */
  commas: number[];
}

/**
 * The top-level members of a JSON object text: every key, and the members whose values are arrays, by one pass
 * that tracks strings and nesting; null when the text is not an object. It trusts nothing: what it finds is only
 * where to cut, and every piece cut is checked by JSON.parse (see parseJsonInSlices).
 */
async function scanTopLevel(
  text: string,
): Promise<{ keys: [number, number][]; arrays: ArrayMember[] } | null> {
  let i = 0;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  if (text.charCodeAt(i) !== OPEN_BRACE) return null;
  const members: ArrayMember[] = [];
  const keys: [number, number][] = [];
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  /** The last string closed at depth 1, a member's key when a colon follows it. */
  let lastKey: [number, number] | null = null;
  let pendingKey: [number, number] | null = null;
  let current: ArrayMember | null = null;
  for (
    let end = Math.min(text.length, i + PARSE_SLICE_CHARS);
    ;
    end = Math.min(text.length, end + PARSE_SLICE_CHARS)
  ) {
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 1) lastKey = [stringStart, i + 1];
        }
        continue;
      }
      switch (c) {
        case QUOTE:
          inString = true;
          stringStart = i;
          break;
        case COLON:
          if (depth === 1 && lastKey) {
            pendingKey = lastKey;
            keys.push(lastKey);
          }
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
          depth++;
          if (depth === 2 && c === OPEN_BRACKET && pendingKey)
            current = { keyStart: pendingKey[0], keyEnd: pendingKey[1], open: i, close: -1, commas: [] };
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          if (depth === 2 && current) {
            current.close = i;
            members.push(current);
            current = null;
          }
          depth--;
          if (depth === 1) pendingKey = null;
          break;
        case COMMA:
          if (depth === 2 && current) current.commas.push(i);
          else if (depth === 1) pendingKey = null;
          break;
      }
    }
    if (end >= text.length) return { keys, arrays: members };
    await nextTurn();
  }
}

/**
 * `JSON.parse(text)`, the same value or the same SyntaxError, without holding the event loop for the whole text
 * when it is large: a batch of 12,500 recipients is ~1 MB, whose JSON.parse alone took 19-41 ms here. For an object
 * text, each top-level array member larger than a slice is cut between its elements, and each run of elements
 * (PARSE_SLICE_CHARS of text) is parsed on its own turn, as is the rest of the object. Every piece is the
 * original text, so when each parses, the whole does too and to the same value; a piece that fails is parsed
 * whole, so the error is JSON.parse's own. Small texts, and what it cannot cut (not an object, a repeated or
 * `__proto__` key), are parsed at once.
 */
export async function parseJsonInSlices(text: string): Promise<unknown> {
  if (text.length <= PARSE_SLICE_CHARS) return JSON.parse(text);
  const scan = await scanTopLevel(text);
  const members = scan?.arrays.filter((m) => m.close - m.open > PARSE_SLICE_CHARS);
  if (!scan || !members?.length) return JSON.parse(text);
  try {
    // A key given twice takes its last value in JSON.parse: such texts, and `__proto__`, are parsed whole.
    const keys = scan.keys.map(([a, b]) => JSON.parse(text.slice(a, b)) as string);
    const memberKeys = members.map((m) => JSON.parse(text.slice(m.keyStart, m.keyEnd)) as string);
    for (const key of memberKeys)
      if (key === "__proto__" || keys.filter((k) => k === key).length !== 1) return JSON.parse(text);
    // The object with those arrays emptied.
    let rest = "";
    let from = 0;
    for (const m of members) {
      rest += text.slice(from, m.open + 1);
      from = m.close;
    }
    rest += text.slice(from);
    await nextTurn();
    const out = JSON.parse(rest) as Record<string, unknown>;
    for (const [n, m] of members.entries()) {
      const key = memberKeys[n]!;
      if (!Array.isArray(out[key]) || (out[key] as unknown[]).length !== 0) return JSON.parse(text);
      const values: unknown[] = [];
      // cut points: the `[`, the commas every PARSE_SLICE_CHARS or so, the `]`
      let start = m.open;
      for (let k = 0; k <= m.commas.length; k++) {
        const cut = k < m.commas.length ? m.commas[k]! : m.close;
        if (k < m.commas.length && cut - start < PARSE_SLICE_CHARS) continue;
        await nextTurn();
        const piece = JSON.parse(`[${text.slice(start + 1, cut)}]`) as unknown[];
        for (const v of piece) values.push(v);
        start = cut;
      }
      out[key] = values;
    }
    return out;
  } catch {
    // JSON.parse's own error (and message) for the whole text
    return JSON.parse(text);
  }
}
