import { z } from "zod";
import { leadEmail, SUBSCRIPTION_STATES } from "./leads";

// Custom events (spec 2 "Event record", 4.7, 8) and the listing parameters GET /v1/events and GET /v1/leads share.

export const EVENT_LIMITS = {
  /** Spec 8: events per POST /v1/events/bulk. */
  bulk: 1_000,
  nameLength: 200,
  /** `properties` of one event, as JSON. */
  propertiesBytes: 64 * 1024,
  /** Spec 8's idempotency key length, for the Idempotency-Key header and `event_id`. */
  idempotencyKeyLength: 128,
  /** A `timestamp` later than now plus this is refused (clocks drift; events from the future do not). */
  futureSkewMs: 5 * 60_000,
  perPageDefault: 50,
  perPageMax: 200,
} as const;

/** ISO 8601 date or date-time; no offset means UTC. */
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** The instant of an ISO 8601 string, or null when it is not one. */
export function parseIsoInstant(value: string): Date | null {
  if (!ISO_8601.test(value)) return null;
  let text = value.replace(",", ".").replace(" ", "T");
  // Date.parse reads a date-time without offset as local time; the API reads it as UTC.
  if (/T/i.test(text) && !/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(text)) text += "Z";
  // `+0530` is not read by every engine: add the colon.
  text = text.replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return null;
  const d = new Date(ms);
  // Date.parse rolls 2026-02-30 over to March: refuse a calendar date that does not exist.
  const [y, m, day] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  const check = new Date(Date.UTC(y, m - 1, day));
  if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== day) return null;
  return d;
}

export const isoInstant = () =>
  z.string({ error: `must be an ISO 8601 date-time string` }).transform((v, ctx) => {
    const d = parseIsoInstant(v.trim());
    if (d) return d;
    ctx.addIssue({ code: "custom", message: `is not an ISO 8601 date-time: ${v.slice(0, 64)}` });
    return z.NEVER;
  });

/** An event's `timestamp`: ISO 8601, not later than 5 minutes from now. */
const eventTimestamp = isoInstant().superRefine((d, ctx) => {
  if (d.getTime() > Date.now() + EVENT_LIMITS.futureSkewMs)
    ctx.addIssue({ code: "custom", message: "timestamp is more than 5 minutes in the future" });
  if (d.getTime() < 0) ctx.addIssue({ code: "custom", message: "timestamp is before 1970" });
});

const jsonObject = (field: string, maxBytes: number) =>
  z.record(z.string(), z.unknown(), { error: `must be an object` }).superRefine((obj, ctx) => {
    const size = Buffer.byteLength(JSON.stringify(obj), "utf8");
    if (size > maxBytes)
      ctx.addIssue({ code: "custom", message: `is ${size} bytes of JSON; at most ${maxBytes}` });
  });

export const eventNameSchema = () =>
  z
    .string({ error: (iss) => (iss.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, { error: `must not be empty` })
    .max(EVENT_LIMITS.nameLength, { error: `must be at most ${EVENT_LIMITS.nameLength} characters` });

export const idempotencyKeySchema = () =>
  z
    .string({ error: `must be a string` })
    .trim()
    .min(1, { error: `must not be empty` })
    .max(EVENT_LIMITS.idempotencyKeyLength, {
      error: `must be at most ${EVENT_LIMITS.idempotencyKeyLength} characters`,
    });

/** Spec 4.7 POST /v1/events (and one item of the bulk body). */
export const trackEventSchema = z.strictObject({
  email: leadEmail(),
  event: eventNameSchema(),
  properties: jsonObject("properties", EVENT_LIMITS.propertiesBytes).optional(),
  timestamp: eventTimestamp.optional(),
  /** The client's own id of the event: a second event with the same id in the project is not stored again. */
  event_id: idempotencyKeySchema().optional(),
});
export type TrackEventInput = z.output<typeof trackEventSchema>;

/** Spec 4.7 POST /v1/events/bulk: 1 to 1,000 events. */
export const trackEventsBulkSchema = z.strictObject({
  events: z
    .array(z.unknown(), { error: "must be an array" })
    .min(1, { error: "must not be empty" })
    .max(EVENT_LIMITS.bulk, {
      error: (iss) =>
        `Too many events: ${(iss.input as unknown[]).length}. Maximum is ${EVENT_LIMITS.bulk} per request.`,
    }),
});

/** `page` and `per_page` (default 50; more than 200 is read as 200). */
export const paginationQuery = {
  page: z.coerce
    .number({ error: "must be a positive integer" })
    .int({ error: "must be a positive integer" })
    .min(1, { error: "must be a positive integer" })
    .max(1_000_000, { error: "must be at most 1000000" })
    .default(1),
  per_page: z.coerce
    .number({ error: "must be a positive integer" })
    .int({ error: "must be a positive integer" })
    .min(1, { error: "must be a positive integer" })
    .default(EVENT_LIMITS.perPageDefault)
    .transform((n) => Math.min(n, EVENT_LIMITS.perPageMax)),
};

/** Spec 4.7 GET /v1/events. */
export const listEventsQuery = z.strictObject({
  email: leadEmail().optional(),
  event: eventNameSchema().optional(),
  since: isoInstant().optional(),
  until: isoInstant().optional(),
  ...paginationQuery,
});
export type ListEventsQuery = z.output<typeof listEventsQuery>;

/** GET /v1/leads (attribute equality comes as `attributes[name]=value`, read by the route). */
export const listLeadsQuery = z.strictObject({
  email: leadEmail().optional(),
  tag: z.string().trim().min(1, { error: "must not be empty" }).max(64).optional(),
  segment: z.uuid({ error: "must be a segment UUID" }).optional(),
  subscription: z
    .enum(SUBSCRIPTION_STATES, { error: `must be one of ${SUBSCRIPTION_STATES.join(", ")}` })
    .optional(),
  created_since: isoInstant().optional(),
  created_until: isoInstant().optional(),
  ...paginationQuery,
});
export type ListLeadsQuery = z.output<typeof listLeadsQuery>;

/** Spec 2 "Event record (custom events)". */
export const eventRecordSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  event: z.string(),
  properties: z.record(z.string(), z.unknown()),
  timestamp: z.string().describe("ISO 8601"),
  recipient_id: z.uuid().describe("The lead"),
  created_at: z.string().describe("ISO 8601"),
});

export const paginationSchema = z.object({
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  total_pages: z.number().int(),
});
