import { z } from "zod";
import { EVENT_LIMITS } from "./events";
import { attributeKeyProblem, LEAD_LIMITS, SUBSCRIPTION_STATES } from "./leads";

// Segments (spec 4.6; created through the admin API since the spec's dashboard creates them). A dynamic segment's
// filter is this JSON tree; the service compiles it to parameterised SQL, never SQL text from a client.
//
// Example: did `purchase` at least 2 times in the last 30 days, has tag `vip`, and is not unsubscribed:
//   { "all": [ { "event": "purchase", "min_count": 2, "within_days": 30 },
//              { "tag": "vip" },
//              { "not": { "subscription": "unsubscribed" } } ] }

export const SEGMENT_LIMITS = { conditions: 50, depth: 6, nameLength: 200 } as const;

export const ATTRIBUTE_OPS = [
  "eq",
  "neq",
  "gt",
  "gte",
  "lt",
  "lte",
  "contains",
  "exists",
  "not_exists",
] as const;

const attributeName = z.string({ error: "attribute must be a string" }).superRefine((k, ctx) => {
  const problem = attributeKeyProblem(k);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
const scalar = z.union([z.string().max(1_000), z.number(), z.boolean()], {
  error: "value must be a string (at most 1000 characters), a number or a boolean",
});

export const attributeCondition = z
  .strictObject({
    attribute: attributeName,
    op: z.enum(ATTRIBUTE_OPS).default("eq"),
    value: scalar.optional(),
  })
  .superRefine((c, ctx) => {
    const needsValue = c.op !== "exists" && c.op !== "not_exists";
    if (needsValue && c.value === undefined)
      ctx.addIssue({ code: "custom", message: `attribute condition with op ${c.op} needs a value` });
    if (["gt", "gte", "lt", "lte"].includes(c.op) && typeof c.value !== "number")
      ctx.addIssue({ code: "custom", message: `attribute condition with op ${c.op} needs a number value` });
    if (c.op === "contains" && typeof c.value !== "string")
      ctx.addIssue({ code: "custom", message: "attribute condition with op contains needs a string value" });
  });
export const tagCondition = z.strictObject({
  tag: z.string().trim().min(1).max(LEAD_LIMITS.tagLength),
});
export const subscriptionCondition = z.strictObject({ subscription: z.enum(SUBSCRIPTION_STATES) });
/** The lead did `event` between min_count and max_count times (in the last `within_days` days, when given). */
export const eventCondition = z
  .strictObject({
    event: z.string().trim().min(1).max(EVENT_LIMITS.nameLength),
    min_count: z.number().int().min(0).max(1_000_000).default(1),
    max_count: z.number().int().min(0).max(1_000_000).optional(),
    within_days: z.number().int().min(1).max(36_500).optional(),
  })
  .refine((c) => c.max_count === undefined || c.max_count >= c.min_count, {
    error: "max_count must not be less than min_count",
  });

export type SegmentFilter =
  | z.output<typeof attributeCondition>
  | z.output<typeof tagCondition>
  | z.output<typeof subscriptionCondition>
  | z.output<typeof eventCondition>
  | { all: SegmentFilter[] }
  | { any: SegmentFilter[] }
  | { not: SegmentFilter };

const node: z.ZodType<SegmentFilter> = z.lazy(() =>
  z.union(
    [
      z.strictObject({ all: z.array(node).min(1).max(SEGMENT_LIMITS.conditions) }),
      z.strictObject({ any: z.array(node).min(1).max(SEGMENT_LIMITS.conditions) }),
      z.strictObject({ not: node }),
      attributeCondition,
      tagCondition,
      subscriptionCondition,
      eventCondition,
    ],
    {
      error:
        "each filter node must be one of {all:[…]}, {any:[…]}, {not:…}, {attribute, op, value}, {tag}, {subscription}, {event, min_count, max_count, within_days}",
    },
  ),
) as z.ZodType<SegmentFilter>;

function measure(f: SegmentFilter, depth: number): { conditions: number; depth: number } {
  if ("all" in f || "any" in f) {
    const kids = ("all" in f ? f.all : f.any).map((k) => measure(k, depth + 1));
    return {
      conditions: kids.reduce((s, k) => s + k.conditions, 0),
      depth: Math.max(depth, ...kids.map((k) => k.depth)),
    };
  }
  if ("not" in f) return measure(f.not, depth + 1);
  return { conditions: 1, depth };
}

export const segmentFilterSchema = node.superRefine((f, ctx) => {
  const m = measure(f, 1);
  if (m.conditions > SEGMENT_LIMITS.conditions)
    ctx.addIssue({
      code: "custom",
      message: `filter has ${m.conditions} conditions; at most ${SEGMENT_LIMITS.conditions}`,
    });
  if (m.depth > SEGMENT_LIMITS.depth)
    ctx.addIssue({
      code: "custom",
      message: `filter nests ${m.depth} levels; at most ${SEGMENT_LIMITS.depth}`,
    });
});

/** Admin POST /admin/projects/:projectId/segments. */
export const createSegmentSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(SEGMENT_LIMITS.nameLength),
    type: z.enum(["static", "dynamic"]),
    filter: segmentFilterSchema.optional(),
  })
  .superRefine((s, ctx) => {
    if (s.type === "dynamic" && !s.filter)
      ctx.addIssue({ code: "custom", path: ["filter"], message: "a dynamic segment needs a filter" });
    if (s.type === "static" && s.filter)
      ctx.addIssue({ code: "custom", path: ["filter"], message: "a static segment has no filter" });
  });
export type CreateSegmentInput = z.output<typeof createSegmentSchema>;

/** Admin POST /admin/projects/:projectId/segments/preview: the builder's filter, counted before it is saved. */
export const segmentPreviewSchema = z.strictObject({ filter: segmentFilterSchema });
