import { z } from "zod";
import {
  eventRecordSchema,
  listEventsQuery,
  listLeadsQuery,
  paginationSchema,
  trackEventSchema,
  trackEventsBulkSchema,
} from "../http/events";
import {
  leadAttributesSchema,
  leadBulkSchema,
  leadSegmentsSchema,
  leadTagsSchema,
  leadUpdateSchema,
  leadUpsertSchema,
} from "../http/leads";
import { badRequest, internalError, notFound, type RouteDoc, unauthorized } from "./builder";

// Spec 4.6 (leads, segments, tags, attributes) and 4.7 (events), as public-api serves them.

const rateLimited = {
  description:
    "Past the per-key limit (events: 10,000 a minute, spec 8; leads: 3,000 a minute). `Retry-After` and " +
    "`RateLimit-*` say when to retry",
  headers: { "Retry-After": "Seconds until the window resets" },
};
const rateHeaders = {
  "RateLimit-Limit": "Requests allowed per window and key",
  "RateLimit-Remaining": "Requests left in this window",
  "RateLimit-Reset": "Seconds until the window resets",
};
const listHeaders = {
  ...rateHeaders,
  "X-Total-Count-Exact": "`false` when `total` is PostgreSQL's estimate (past 10,000 matching rows)",
};

const lead = z.object({
  id: z.uuid(),
  email: z.string().describe("As first given; the lead is unique by its normalised form"),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  phone: z.string().nullable(),
  attributes: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  subscription: z
    .enum(["unknown", "subscribed", "unsubscribed"])
    .describe("Marketing consent; unknown is not opted in"),
  subscription_changed_at: z.string().nullable(),
  subscription_source: z.string().nullable(),
  source: z.enum(["api", "event", "import", "shop"]),
  created_at: z.string(),
  updated_at: z.string(),
});
const segmentRef = z.object({ id: z.uuid(), name: z.string(), type: z.enum(["static", "dynamic"]) });
const leadWithSegments = lead.extend({ segments: z.array(segmentRef) });
const bulkResult = z.object({
  index: z.number().int(),
  status: z.enum(["created", "updated", "invalid"]),
  id: z.uuid().optional(),
  email: z.string().nullable(),
  error: z.string().optional().describe("Why the item was refused, naming the field"),
});
const tagsAnswer = z.object({ success: z.literal(true), email: z.string(), tags: z.array(z.string()) });
const attributesAnswer = z.object({
  success: z.literal(true),
  email: z.string(),
  attributes: z.record(z.string(), z.unknown()),
});
const leadSegmentsAnswer = z.object({
  success: z.literal(true),
  id: z.uuid(),
  segments: z.array(segmentRef),
});

const idParam = { id: { description: "The lead's id (its email works too)", format: "uuid" as const } };
const emailParam = { email: { description: "The lead's email, URL-encoded (its id works too)" } };
const idempotency = {
  "Idempotency-Key": {
    description:
      "At most 128 characters: an event with a key already used in the project is not stored again; the answer " +
      "carries the first event's ids (`duplicate: true`). In bulk, item i uses `<key>:<i>` unless it has `event_id`",
  },
};
const leadErrors = {
  401: unauthorized,
  404: notFound("No such lead in the key's project"),
  429: rateLimited,
};

const r = (route: Omit<RouteDoc, "service">): RouteDoc => ({ service: "public-api", ...route });

export const eventRoutes: RouteDoc[] = [
  r({
    method: "post",
    path: "/v1/events",
    tag: "Events",
    summary: "Track one event (spec 4.7)",
    description:
      "An email with no lead gets an empty lead (source `event`, subscription `unknown` unless the project's " +
      "`auto_leads_subscribed` setting says otherwise), created once however many events race for it. " +
      "`timestamp` defaults to now and may be at most 5 minutes in the future.",
    headers: idempotency,
    body: trackEventSchema,
    responses: {
      201: {
        description: "Stored (or a retry of a stored one)",
        headers: rateHeaders,
        schema: z.object({
          success: z.literal(true),
          event_id: z.uuid(),
          recipient_id: z.uuid(),
          created_lead: z.boolean(),
          duplicate: z.literal(true).optional(),
        }),
      },
      400: badRequest(),
      401: unauthorized,
      429: rateLimited,
      500: internalError,
    },
  }),
  r({
    method: "post",
    path: "/v1/events/bulk",
    tag: "Events",
    summary: "Track up to 1,000 events (spec 4.7)",
    description:
      "All items are checked first: one bad item is a 400 naming it (`events[3].email: …`) and nothing is stored.",
    headers: idempotency,
    body: trackEventsBulkSchema.extend({ events: z.array(trackEventSchema).min(1).max(1000) }),
    responses: {
      201: {
        description: "Stored; one result per item",
        headers: rateHeaders,
        schema: z.object({
          success: z.literal(true),
          total: z.number().int(),
          created_leads: z.number().int(),
          duplicates: z.number().int(),
          results: z.array(
            z.object({
              index: z.number().int(),
              event_id: z.uuid(),
              recipient_id: z.uuid(),
              created_lead: z.boolean(),
              duplicate: z.boolean(),
            }),
          ),
        }),
      },
      400: badRequest("Validation failed, or more than 1,000 events"),
      401: unauthorized,
      429: rateLimited,
      500: internalError,
    },
  }),
  r({
    method: "get",
    path: "/v1/events",
    tag: "Events",
    summary: "List events, newest first (spec 4.7)",
    description: "`since` and `until` are inclusive; `per_page` above 200 is read as 200.",
    query: listEventsQuery,
    responses: {
      200: {
        description: "A page of event records (spec 2)",
        headers: listHeaders,
        schema: z.object({
          success: z.literal(true),
          data: z.array(eventRecordSchema),
          pagination: paginationSchema,
        }),
      },
      400: badRequest(),
      401: unauthorized,
      429: rateLimited,
      500: internalError,
    },
  }),
];

export const leadRoutes: RouteDoc[] = [
  r({
    method: "post",
    path: "/v1/leads",
    tag: "Leads",
    summary: "Create or update a lead, or up to 1,000 (spec 4.6)",
    description:
      "One lead (the body is a lead) or `{ leads: [...] }`. A known email (trimmed, lower-cased, domain in " +
      "punycode) updates its lead: given fields are set, `attributes` merged (null removes a name), `tags` added. " +
      "In bulk every item gets a result, so one bad row does not sink the others.",
    body: z.union([
      leadUpsertSchema,
      leadBulkSchema.extend({ leads: z.array(leadUpsertSchema).min(1).max(1000) }),
    ]),
    responses: {
      200: {
        description: "Updated (one lead), or the bulk results",
        schema: z.union([
          z.object({ success: z.literal(true), created: z.literal(false), lead }),
          z.object({
            success: z.literal(true),
            total: z.number().int(),
            created: z.number().int(),
            updated: z.number().int(),
            invalid: z.number().int(),
            results: z.array(bulkResult),
          }),
        ]),
      },
      201: {
        description: "Created",
        schema: z.object({ success: z.literal(true), created: z.literal(true), lead }),
      },
      400: badRequest("Invalid lead, or more than 1,000"),
      401: unauthorized,
      429: rateLimited,
    },
  }),
  r({
    method: "get",
    path: "/v1/leads",
    tag: "Leads",
    summary: "List leads, newest first",
    description:
      "Attribute equality: `attributes[plan]=pro` (compared as text). `segment` takes a segment id.",
    query: listLeadsQuery,
    responses: {
      200: {
        description: "A page of leads",
        headers: listHeaders,
        schema: z.object({ success: z.literal(true), data: z.array(lead), pagination: paginationSchema }),
      },
      400: badRequest(),
      401: unauthorized,
      404: notFound("The `segment` is not the project's"),
      429: rateLimited,
    },
  }),
  r({
    method: "get",
    path: "/v1/leads/{id}",
    tag: "Leads",
    summary: "A lead with the segments it is in",
    pathParams: idParam,
    responses: {
      200: {
        description: "The lead",
        schema: z.object({ success: z.literal(true), lead: leadWithSegments }),
      },
      ...leadErrors,
    },
  }),
  r({
    method: "put",
    path: "/v1/leads/{id}",
    tag: "Leads",
    summary: "Update a lead: given fields replace (attributes and tags as a whole)",
    pathParams: idParam,
    body: leadUpdateSchema,
    responses: {
      200: { description: "The lead", schema: z.object({ success: z.literal(true), lead }) },
      400: badRequest(),
      409: badRequest("The new email is another lead's"),
      ...leadErrors,
    },
  }),
  r({
    method: "delete",
    path: "/v1/leads/{id}",
    tag: "Leads",
    summary: "Delete a lead and its personal data",
    description:
      "Removes the lead, its custom events and its segment memberships. Sent-email records (activities) and " +
      "suppressions of the address are kept: they are the sending log and what keeps an unsubscribe honoured.",
    pathParams: idParam,
    responses: {
      200: {
        description: "Deleted",
        schema: z.object({
          success: z.literal(true),
          id: z.uuid(),
          deleted: z.literal(true),
          deleted_events: z.number().int(),
        }),
      },
      ...leadErrors,
    },
  }),
  r({
    method: "post",
    path: "/v1/leads/{id}/segments",
    tag: "Leads",
    summary: "Add the lead to static segments",
    pathParams: idParam,
    body: leadSegmentsSchema,
    responses: {
      200: { description: "The segments the lead is in now", schema: leadSegmentsAnswer },
      400: badRequest("Invalid ids, or a dynamic segment (its members follow its filter)"),
      ...leadErrors,
    },
  }),
  r({
    method: "delete",
    path: "/v1/leads/{id}/segments/{segmentId}",
    tag: "Leads",
    summary: "Remove the lead from a static segment",
    pathParams: { ...idParam, segmentId: { description: "Segment id", format: "uuid" } },
    responses: {
      200: { description: "The segments the lead is in now", schema: leadSegmentsAnswer },
      400: badRequest("A dynamic segment"),
      ...leadErrors,
    },
  }),
  r({
    method: "get",
    path: "/v1/leads/{email}/tags",
    tag: "Leads",
    summary: "List a lead's tags",
    pathParams: emailParam,
    responses: { 200: { description: "Tags", schema: tagsAnswer }, ...leadErrors },
  }),
  r({
    method: "post",
    path: "/v1/leads/{email}/tags",
    tag: "Leads",
    summary: "Add tags (idempotent; at most 100 per lead)",
    pathParams: emailParam,
    body: leadTagsSchema,
    responses: { 200: { description: "Tags now", schema: tagsAnswer }, 400: badRequest(), ...leadErrors },
  }),
  r({
    method: "delete",
    path: "/v1/leads/{email}/tags",
    tag: "Leads",
    summary: "Remove the listed tags",
    pathParams: emailParam,
    body: leadTagsSchema,
    responses: { 200: { description: "Tags now", schema: tagsAnswer }, 400: badRequest(), ...leadErrors },
  }),
  r({
    method: "get",
    path: "/v1/leads/{email}/attributes",
    tag: "Leads",
    summary: "Read a lead's attributes",
    pathParams: emailParam,
    responses: { 200: { description: "Attributes", schema: attributesAnswer }, ...leadErrors },
  }),
  r({
    method: "post",
    path: "/v1/leads/{email}/attributes",
    tag: "Leads",
    summary: "Merge attributes; a name set to null is removed",
    description:
      "At most 100 names (letters, digits, `_`, `-`; 64 characters; lead field names are reserved), 8 KB of JSON " +
      "per value, 64 KB in all.",
    pathParams: emailParam,
    body: leadAttributesSchema,
    responses: {
      200: { description: "Attributes now", schema: attributesAnswer },
      400: badRequest(),
      ...leadErrors,
    },
  }),
];
