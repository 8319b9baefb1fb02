import { z } from "zod";
import { asciiDomainAddress, isEmailAddress } from "./send-requests";

// Leads, tags, attributes and segments (spec 4.6; its shapes are "not shown", so these are ours, modelled on
// what Loops, Customer.io and Klaviyo users expect). Every client-visible limit and message lives here.

export const LEAD_LIMITS = {
  /** Spec 8: leads per POST /v1/leads. */
  bulk: 1_000,
  attributeKeys: 100,
  attributeKeyLength: 64,
  /** One attribute value, as JSON. */
  attributeValueBytes: 8 * 1024,
  /** All attributes of a lead together, as JSON. */
  attributesBytes: 64 * 1024,
  tags: 100,
  tagLength: 64,
  nameLength: 200,
  phoneLength: 32,
  /** Spec 8 (the same as GET /v1/events). */
  perPageDefault: 50,
  perPageMax: 200,
} as const;

/** Lead fields and words the API uses around attributes: an attribute of that name would be ambiguous. */
export const RESERVED_ATTRIBUTE_NAMES = [
  "id",
  "email",
  "first_name",
  "last_name",
  "phone",
  "tags",
  "subscription",
  "source",
  "segments",
  "attributes",
  "created_at",
  "updated_at",
  "project_id",
  "lead_id",
  "recipient_id",
] as const;
const RESERVED = new Set<string>(RESERVED_ATTRIBUTE_NAMES);
const ATTRIBUTE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** The lead's identity in its project: trimmed, lower-cased, the domain in punycode. */
export function normalizeLeadEmail(email: string): string {
  return asciiDomainAddress(email.trim().toLowerCase());
}

/** A lead's email (trimmed; the original spelling is kept for display). */
export const leadEmail = () =>
  z
    .string({ error: (iss) => (iss.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, { error: `must not be empty` })
    .refine(isEmailAddress, { error: (iss) => `is not a valid email address: ${String(iss.input)}` });

const byteLength = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? "", "utf8");

/** Why an attribute name is refused, or null. */
export function attributeKeyProblem(key: string): string | null {
  if (key.length === 0) return "attribute names must not be empty";
  if (key.length > LEAD_LIMITS.attributeKeyLength)
    return `attribute name "${key.slice(0, 80)}" is longer than ${LEAD_LIMITS.attributeKeyLength} characters`;
  if (!ATTRIBUTE_KEY.test(key))
    return `attribute name "${key}" must start with a letter or _ and hold only letters, digits, _ and -`;
  if (RESERVED.has(key.toLowerCase())) return `attribute name "${key}" is reserved`;
  return null;
}

/**
 * Custom attributes: a JSON object of at most 100 names, each value at most 8 KB of JSON. `allowNull`: a `null`
 * value removes the attribute (merge semantics); where the object replaces the attributes, null is refused.
 */
export const attributesSchema = (opts: { allowNull: boolean } = { allowNull: true }) =>
  z.record(z.string(), z.unknown(), { error: `must be an object` }).superRefine((obj, ctx) => {
    const keys = Object.keys(obj);
    const total = byteLength(obj);
    if (total > LEAD_LIMITS.attributesBytes) {
      ctx.addIssue({
        code: "custom",
        message: `is ${total} bytes of JSON; at most ${LEAD_LIMITS.attributesBytes}`,
      });
      return;
    }
    if (keys.length > LEAD_LIMITS.attributeKeys) {
      ctx.addIssue({
        code: "custom",
        message: `has ${keys.length} names; at most ${LEAD_LIMITS.attributeKeys}`,
      });
      return;
    }
    for (const key of keys) {
      const problem = attributeKeyProblem(key);
      if (problem) return void ctx.addIssue({ code: "custom", message: `${problem}` });
      const value = obj[key];
      if (value === null && !opts.allowNull)
        return void ctx.addIssue({ code: "custom", message: `${key} must not be null` });
      const size = byteLength(value);
      if (size > LEAD_LIMITS.attributeValueBytes)
        return void ctx.addIssue({
          code: "custom",
          message: `${key} is ${size} bytes of JSON; at most ${LEAD_LIMITS.attributeValueBytes}`,
        });
    }
  });

const tag = () =>
  z
    .string({ error: `must be strings` })
    .trim()
    .min(1, { error: `must not be empty strings` })
    .max(LEAD_LIMITS.tagLength, { error: `must be at most ${LEAD_LIMITS.tagLength} characters each` });

export const tagListSchema = () =>
  z
    .array(tag(), { error: `must be an array of strings` })
    .max(LEAD_LIMITS.tags, { error: `holds at most ${LEAD_LIMITS.tags} tags` })
    .transform((tags) => [...new Set(tags)]);

const optionalText = (field: string, max: number) =>
  z
    .string({ error: `must be a string or null` })
    .trim()
    .max(max, { error: `must be at most ${max} characters` })
    .transform((v) => (v === "" ? null : v))
    .nullable()
    .optional();

export const SUBSCRIPTION_STATES = ["unknown", "subscribed", "unsubscribed"] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];
export const LEAD_SOURCES = ["api", "event", "import", "shop"] as const;

/** Marketing consent set by a client: subscribed or unsubscribed (never back to unknown). */
const subscriptionInput = z.enum(["subscribed", "unsubscribed"], {
  error: "must be subscribed or unsubscribed",
});

const phone = z
  .string({ error: "must be a string or null" })
  .trim()
  .max(LEAD_LIMITS.phoneLength, { error: `must be at most ${LEAD_LIMITS.phoneLength} characters` })
  .refine((p) => p === "" || /^\+?[0-9 ().-]{3,}$/.test(p), {
    error: "must be digits, optionally +, spaces, ()-.",
  })
  .transform((v) => (v === "" ? null : v))
  .nullable()
  .optional();

/**
 * One lead of POST /v1/leads (created, or updated when the email is known in the project): the given fields are
 * set, `attributes` are merged into the lead's (null removes a name), `tags` are added to the lead's.
 */
export const leadUpsertSchema = z.strictObject({
  email: leadEmail(),
  first_name: optionalText("first_name", LEAD_LIMITS.nameLength),
  last_name: optionalText("last_name", LEAD_LIMITS.nameLength),
  phone,
  attributes: attributesSchema().optional(),
  tags: tagListSchema().optional(),
  subscription: subscriptionInput.optional(),
});
export type LeadUpsertInput = z.output<typeof leadUpsertSchema>;

/** POST /v1/leads in bulk: `{ leads: [...] }`, 1 to 1,000; each item is checked on its own. */
export const leadBulkSchema = z.strictObject({
  leads: z
    .array(z.unknown(), { error: "must be an array" })
    .min(1, { error: "must not be empty" })
    .max(LEAD_LIMITS.bulk, {
      error: (iss) =>
        `Too many leads: ${(iss.input as unknown[]).length}. Maximum is ${LEAD_LIMITS.bulk} per request.`,
    }),
});

/** PUT /v1/leads/:id: the given fields replace the lead's (`attributes` and `tags` as a whole). */
export const leadUpdateSchema = z.strictObject({
  email: leadEmail().optional(),
  first_name: optionalText("first_name", LEAD_LIMITS.nameLength),
  last_name: optionalText("last_name", LEAD_LIMITS.nameLength),
  phone,
  attributes: attributesSchema({ allowNull: false }).optional(),
  tags: tagListSchema().optional(),
  subscription: subscriptionInput.optional(),
});
export type LeadUpdateInput = z.output<typeof leadUpdateSchema>;

/** POST / DELETE /v1/leads/:email/tags. */
export const leadTagsSchema = z.strictObject({
  tags: tagListSchema().refine((t) => t.length > 0, { error: "must not be empty" }),
});

/** POST /v1/leads/:email/attributes: merged into the lead's; a name set to null is removed. */
export const leadAttributesSchema = z.strictObject({ attributes: attributesSchema() });

/** POST /v1/leads/:id/segments. */
export const leadSegmentsSchema = z.strictObject({
  segment_ids: z
    .array(z.uuid({ error: "must hold segment UUIDs" }), {
      error: "must be an array",
    })
    .min(1, { error: "must not be empty" })
    .max(100, { error: "holds at most 100 ids" })
    .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]),
});

/** Admin GET /admin/projects/:projectId/leads/:leadId/timeline: one page, newest first. */
export const leadTimelineQuery = z.strictObject({
  /** the previous page's next_cursor */
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type LeadTimelineQuery = z.output<typeof leadTimelineQuery>;
