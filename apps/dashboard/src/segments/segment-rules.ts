// The segment builder's model and its translation to the API's filter tree (packages/contracts' segments.ts): a
// list of groups joined by AND or OR, each a list of rules joined by AND or OR. A rule not filled in yet is left
// out of the filter (the count follows what is complete); no complete rule at all gives no filter.

export type SegmentFilter =
  | { attribute: string; op: string; value?: string | number | boolean }
  | { tag: string }
  | { subscription: string }
  | { event: string; min_count: number; within_days?: number }
  | { all: SegmentFilter[] }
  | { any: SegmentFilter[] }
  | { not: SegmentFilter };

export const ATTRIBUTE_OPS = {
  eq: "is",
  neq: "is not",
  contains: "contains",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  exists: "is set",
  not_exists: "is not set",
} as const;
export type AttributeOp = keyof typeof ATTRIBUTE_OPS;
const NUMERIC: AttributeOp[] = ["gt", "gte", "lt", "lte"];

export type Rule =
  | { kind: "attribute"; attribute: string; op: AttributeOp; value: string }
  | { kind: "tag"; tag: string; has: boolean }
  | { kind: "subscription"; subscription: "unknown" | "subscribed" | "unsubscribed" }
  | { kind: "event"; event: string; min_count: string; within_days: string };
export type RuleKind = Rule["kind"];
export type Match = "all" | "any";

export interface RuleGroup {
  match: Match;
  rules: Rule[];
}
export interface SegmentModel {
  match: Match;
  groups: RuleGroup[];
}

export function newRule(kind: RuleKind): Rule {
  switch (kind) {
    case "attribute":
      return { kind, attribute: "", op: "eq", value: "" };
    case "tag":
      return { kind, tag: "", has: true };
    case "subscription":
      return { kind, subscription: "subscribed" };
    case "event":
      return { kind, event: "", min_count: "1", within_days: "30" };
  }
}

export const emptyModel = (): SegmentModel => ({
  match: "all",
  groups: [{ match: "all", rules: [newRule("tag")] }],
});

const wholeNumber = (s: string) => (/^\d+$/.test(s.trim()) ? Number(s.trim()) : null);

/** One rule's filter, or null while it is incomplete or invalid. */
export function ruleFilter(r: Rule): SegmentFilter | null {
  switch (r.kind) {
    case "tag":
      if (!r.tag.trim()) return null;
      return r.has ? { tag: r.tag.trim() } : { not: { tag: r.tag.trim() } };
    case "subscription":
      return { subscription: r.subscription };
    case "event": {
      const min = wholeNumber(r.min_count);
      const days = r.within_days.trim() === "" ? undefined : wholeNumber(r.within_days);
      if (!r.event.trim() || min === null || days === null || days === 0) return null;
      return { event: r.event.trim(), min_count: min, ...(days !== undefined ? { within_days: days } : {}) };
    }
    case "attribute": {
      const attribute = r.attribute.trim();
      if (!attribute) return null;
      if (r.op === "exists" || r.op === "not_exists") return { attribute, op: r.op };
      if (NUMERIC.includes(r.op)) {
        const n = Number(r.value);
        return r.value.trim() === "" || !Number.isFinite(n) ? null : { attribute, op: r.op, value: n };
      }
      return r.value === "" ? null : { attribute, op: r.op, value: r.value };
    }
  }
}

const join = (match: Match, parts: SegmentFilter[]): SegmentFilter | null =>
  parts.length === 0
    ? null
    : parts.length === 1
      ? parts[0]!
      : match === "all"
        ? { all: parts }
        : { any: parts };

/** The model's filter: complete rules only; null when none is complete. */
export function toFilter(m: SegmentModel): SegmentFilter | null {
  const groups = m.groups
    .map((g) =>
      join(
        g.match,
        g.rules.map(ruleFilter).filter((f): f is SegmentFilter => f !== null),
      ),
    )
    .filter((f): f is SegmentFilter => f !== null);
  return join(m.match, groups);
}

/** "about 1,200,000" for an estimate, "1,234" for an exact count. */
export function describeCount(c: { count: number; exact: boolean }): string {
  const n = c.count.toLocaleString("en-US");
  return c.exact ? n : `about ${n}`;
}
