/**
 * Reads `a.b.c` from nested data; undefined when any step is missing. Only the data's own properties count:
 * `{{constructor}}` or `{{toString}}` must not reach Object.prototype (it rendered functions, and escaping
 * them threw).
 */
export function lookup(data: unknown, path: string): unknown {
  let cur: unknown = data;
  for (const part of path.split(".")) {
    if (cur === null || cur === undefined || typeof cur !== "object" || !Object.hasOwn(cur, part))
      return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * How a substituted value is written: strings as is, numbers/booleans via String, objects and arrays as JSON.
 * A value JSON cannot write (a request's data can nest deeper than the stack allows) renders as the empty
 * string, like a missing one.
 */
export function stringify(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
