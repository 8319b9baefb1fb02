import type { SegmentFilter } from "@emailsvc/contracts";

/** Collects bind values; `add` answers the placeholder (`$n`). Values never become SQL text. */
export class SqlParams {
  readonly values: unknown[];
  constructor(initial: unknown[] = []) {
    this.values = [...initial];
  }
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A dynamic segment's filter as a SQL boolean over the lead alias `l` (a row of `leads`), with every client value
 * a bind parameter: names, values, counts and days all go through `params`, only the shape of the tree becomes
 * SQL. Every condition is true or false, never NULL, so `not` means "does not match". Evaluated at query time,
 * so membership follows events and attribute changes at once.
 */
export function compileSegmentFilter(f: SegmentFilter, params: SqlParams, l = "l"): string {
  if ("all" in f) return `(${f.all.map((c) => compileSegmentFilter(c, params, l)).join(" AND ")})`;
  if ("any" in f) return `(${f.any.map((c) => compileSegmentFilter(c, params, l)).join(" OR ")})`;
  if ("not" in f) return `(NOT ${compileSegmentFilter(f.not, params, l)})`;
  if ("tag" in f) return `(COALESCE(${l}.tags, '{}') @> ARRAY[${params.add(f.tag)}::text])`;
  if ("subscription" in f) return `(${l}.subscription = ${params.add(f.subscription)}::text)`;
  if ("event" in f) {
    const min = f.min_count;
    const max = f.max_count;
    if (min === 0 && max === undefined) return "true";
    // Count no further than the condition needs: "at least 2" stops at the second event.
    const cap = max !== undefined ? max + 1 : min;
    const since =
      f.within_days !== undefined
        ? ` AND e.occurred_at >= now() - ${params.add(f.within_days)}::int * interval '1 day'`
        : "";
    const count = `(SELECT count(*) FROM (SELECT 1 FROM lead_events e WHERE e.project_id = ${l}.project_id AND e.lead_id = ${l}.id AND e.name = ${params.add(f.event)}::text${since} LIMIT ${params.add(cap)}::int) c)`;
    const parts = [
      min > 0 ? `${count} >= ${params.add(min)}::int` : null,
      max !== undefined ? `${count} <= ${params.add(max)}::int` : null,
    ];
    return `(${parts.filter(Boolean).join(" AND ")})`;
  }
  const attr = `${l}.attributes`;
  const key = params.add(f.attribute);
  switch (f.op) {
    case "exists":
      return `(${attr} ? ${key}::text)`;
    case "not_exists":
      return `(NOT ${attr} ? ${key}::text)`;
    case "eq":
      // Compared as text: 42 matches "42", true matches "true" (attributes arrive from many sources).
      return `COALESCE(${attr} ->> ${key}::text = ${params.add(String(f.value))}::text, false)`;
    case "neq":
      return `COALESCE(${attr} ->> ${key}::text <> ${params.add(String(f.value))}::text, true)`;
    case "contains":
      return `COALESCE(strpos(lower(${attr} ->> ${key}::text), lower(${params.add(String(f.value))}::text)) > 0, false)`;
    default: {
      const op = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[f.op];
      return `(CASE WHEN jsonb_typeof(${attr} -> ${key}::text) = 'number' THEN (${attr} ->> ${key}::text)::numeric ${op} ${params.add(f.value)}::numeric ELSE false END)`;
    }
  }
}
