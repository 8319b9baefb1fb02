import { Router, type RequestHandler } from "express";
import {
  EVENT_LIMITS,
  idempotencyKeySchema,
  listEventsQuery,
  trackEventSchema,
  trackEventsBulkSchema,
  type ProjectId,
} from "@emailsvc/contracts";
import { type Db, type EventTracker, trackEvents, type TrackItem } from "@emailsvc/db";
import {
  apiKeyAuth,
  AppError,
  ErrorCode,
  getAuth,
  jsonBody,
  methodNotAllowed,
  parseInput,
  type ApiKeyLookup,
} from "@emailsvc/http";
import { listEvents } from "./list-events";
import { objectBody, objectBodyOf, totalHeader } from "../listing/request";

/** 1,000 events with up to 64 KB of properties each would be 64 MB; 10 MB is room for real bulk bodies. */
export const EVENTS_BODY_LIMIT = "10mb";

export interface EventsRoutesDeps {
  db: Db;
  /** Single events, group-committed (createEventTracker): shared with the fast path. */
  track: EventTracker;
  lookupApiKey: ApiKeyLookup;
  /** The per-key rate limit of the events endpoints (spec 8), mounted after the key check. */
  rateLimit: RequestHandler;
}

function idempotencyHeader(raw: string | string[] | undefined): string | null {
  if (raw === undefined) return null;
  const parsed = idempotencyKeySchema().safeParse(raw);
  if (!parsed.success)
    throw new AppError(
      ErrorCode.VALIDATION,
      `Idempotency-Key: must be 1 to ${EVENT_LIMITS.idempotencyKeyLength} characters`,
    );
  return parsed.data;
}

/**
 * POST /v1/events after the key check: validates the body and records the event. Served by the Express route and
 * by the fast path ahead of it (events.fast-path.ts), so both answer alike.
 */
export async function trackOneEvent(
  track: EventTracker,
  projectId: ProjectId,
  idempotencyKey: string | string[] | undefined,
  body: unknown,
): Promise<Record<string, unknown>> {
  const key = idempotencyHeader(idempotencyKey);
  const input = parseInput(trackEventSchema, objectBodyOf(body));
  const out = await track(projectId, { input, key: input.event_id ?? key });
  return {
    success: true,
    event_id: out.event_id,
    recipient_id: out.recipient_id,
    created_lead: out.created_lead,
    ...(out.duplicate ? { duplicate: true } : {}),
  };
}

/**
 * Spec 4.7. POST /v1/events → 201 { success, event_id, recipient_id, created_lead }; POST /v1/events/bulk →
 * 201 { success, total, created_leads, duplicates, results[] } (all items valid or a 400 naming the first bad
 * one, so `total` is what was recorded); GET /v1/events → { success, data, pagination }.
 * A retried event counts once: `event_id` (the client's own id of the event) or the Idempotency-Key header
 * (in bulk, `<key>:<index>` per item) is unique per project; a retry answers with the first event's ids.
 */
export function eventsRouter(deps: EventsRoutesDeps): Router {
  const r = Router();
  const auth = apiKeyAuth(deps.lookupApiKey);
  const body = jsonBody({ limit: EVENTS_BODY_LIMIT });

  r.post("/v1/events", auth, deps.rateLimit, ...body, async (req, res) => {
    const { projectId } = getAuth(res);
    res
      .status(201)
      .json(await trackOneEvent(deps.track, projectId, req.headers["idempotency-key"], req.body));
  });

  r.post("/v1/events/bulk", auth, deps.rateLimit, ...body, async (req, res) => {
    const { projectId } = getAuth(res);
    const key = idempotencyHeader(req.headers["idempotency-key"]);
    const { events } = parseInput(trackEventsBulkSchema, objectBody(req));
    const items: TrackItem[] = events.map((raw, i) => {
      const parsed = trackEventSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const path = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
        throw new AppError(ErrorCode.VALIDATION, `events[${i}]${path}: ${issue.message}`);
      }
      return { input: parsed.data, key: parsed.data.event_id ?? (key === null ? null : `${key}:${i}`) };
    });
    const out = await trackEvents(deps.db, projectId, items);
    res.status(201).json({
      success: true,
      total: out.length,
      created_leads: out.filter((o) => o.created_lead).length,
      duplicates: out.filter((o) => o.duplicate).length,
      results: out.map((o, index) => ({ index, ...o })),
    });
  });

  r.get("/v1/events", auth, deps.rateLimit, async (req, res) => {
    const { projectId } = getAuth(res);
    const q = parseInput(listEventsQuery, req.query);
    const out = await listEvents(deps.db, projectId, q);
    totalHeader(res, out.total);
    res.json(out.body);
  });

  r.all("/v1/events", methodNotAllowed("GET", "HEAD", "POST"));
  r.all("/v1/events/bulk", methodNotAllowed("POST"));
  return r;
}
