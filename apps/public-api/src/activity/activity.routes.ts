import { Router } from "express";
import { z } from "zod";
import { isUuid, projectIdOf } from "@emailsvc/contracts";
import { ACTIVITY_STATUSES, type Db, findActivityDetail, listActivities } from "@emailsvc/db";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { decodeCursor, encodeCursor } from "../listing/keyset-cursor";

export const listActivitiesQuery = z.object({
  /** spec 2: the live view hides test activities */
  mode: z.enum(["live", "test"], { error: "mode must be live or test" }).default("live"),
  status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(",").map((s) => s.trim()) : undefined))
    .refine((v) => !v || v.every((s) => (ACTIVITY_STATUSES as readonly string[]).includes(s)), {
      error: `status must be a comma-separated list of ${ACTIVITY_STATUSES.join(", ")}`,
    }),
  recipient: z.string().trim().min(3).max(320).optional(),
  campaign_id: z.uuid({ error: "campaign_id must be a UUID" }).optional(),
  since: z.iso.datetime({ offset: true, error: "since must be an ISO 8601 date-time" }).optional(),
  until: z.iso.datetime({ offset: true, error: "until must be an ISO 8601 date-time" }).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The dashboard's activity log (issue 45): GET /admin/projects/:projectId/activities (live or test, filtered,
 * keyset-paged) and GET …/activities/:activityId (what was sent, its event timeline, its webhook deliveries).
 */
export function activityRouter(deps: { db: Db }): Router {
  const r = Router();
  const project = (id: string) => {
    if (!isUuid(id)) throw new AppError(ErrorCode.VALIDATION, "projectId must be a UUID");
    return projectIdOf(id);
  };

  r.get("/projects/:projectId/activities", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const q = parseInput(listActivitiesQuery, req.query);
    const rows = await listActivities(deps.db, projectId, {
      isTest: q.mode === "test",
      ...(q.status ? { statuses: q.status } : {}),
      ...(q.recipient ? { recipient: q.recipient } : {}),
      ...(q.campaign_id ? { campaignId: q.campaign_id } : {}),
      ...(q.since ? { since: new Date(q.since) } : {}),
      ...(q.until ? { until: new Date(q.until) } : {}),
      ...(q.cursor ? { after: decodeCursor(q.cursor) } : {}),
      limit: q.limit,
    });
    const last = rows.at(-1);
    res.json({
      success: true,
      mode: q.mode,
      activities: rows.map((a) => ({
        id: a.id,
        email_id: a.email_message_id,
        recipient: a.recipient,
        subject: a.subject,
        from: a.from_email,
        status: a.status,
        email_type: a.email_type,
        source: a.source,
        campaign_id: a.campaign_id,
        batch_id: a.batch_id,
        created_at: a.created_at.toISOString(),
        sent_at: iso(a.sent_at),
        delivered_at: iso(a.delivered_at),
        opened_at: iso(a.opened_first_at),
        clicked_at: iso(a.clicked_first_at),
        bounced_at: iso(a.bounced_at),
        failure_reason: a.failure_reason,
      })),
      next_cursor: last && rows.length === q.limit ? encodeCursor(last.created_at, last.id) : null,
    });
  });

  r.get("/projects/:projectId/activities/:activityId", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const activityId = String(req.params.activityId);
    const found = isUuid(activityId) ? await findActivityDetail(deps.db, projectId, activityId) : null;
    if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Activity not found");
    const a = found.activity;
    res.json({
      success: true,
      activity: {
        id: a.id,
        email_id: a.email_message_id,
        is_test: a.is_test,
        recipient: a.recipient,
        from: a.from_email,
        subject: a.subject,
        status: a.status,
        email_type: a.email_type,
        source: a.source,
        campaign_id: a.campaign_id,
        provider_message_id: a.provider_message_id,
        failure_reason: a.failure_reason,
        created_at: a.created_at.toISOString(),
        // as stored: a template's variables are rendered per recipient by the send-worker (`data`)
        html: a.html,
        text: a.text,
        data: a.data,
      },
      events: found.events.map((e) => ({
        type: e.type,
        occurred_at: e.occurred_at.toISOString(),
        payload: e.payload,
      })),
      webhook_deliveries: found.deliveries.map((d) => ({
        id: d.id,
        event: d.event,
        status: d.status,
        attempts: d.attempts,
        last_status_code: d.last_status_code,
        url: d.url,
        created_at: d.created_at.toISOString(),
      })),
    });
  });
  return r;
}

/** For adminOpenApi. */
export function activityPaths(ok: (d: string) => { description: string }) {
  const id = (name: string) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string", format: "uuid" },
  });
  return {
    "/admin/projects/{projectId}/activities": {
      parameters: [id("projectId")],
      get: {
        summary:
          "The project's activities, newest first: live or test (mode), filtered, keyset-paged (cursor)",
        parameters: Object.keys(listActivitiesQuery.shape).map((name) =>
          name === "status"
            ? // comma-separated (form, not exploded): the statuses the dashboard's filter offers
              {
                name,
                in: "query",
                required: false,
                style: "form",
                explode: false,
                schema: { type: "array", items: { type: "string", enum: [...ACTIVITY_STATUSES] } },
              }
            : { name, in: "query", required: false, schema: { type: "string" } },
        ),
        responses: {
          200: ok("activities, next_cursor (null on the last page)"),
          400: ok("a bad filter or cursor"),
        },
      },
    },
    "/admin/projects/{projectId}/activities/{activityId}": {
      parameters: [id("projectId"), id("activityId")],
      get: {
        summary: "One activity: what was sent, its event timeline and its webhook deliveries",
        responses: { 200: ok("activity, events, webhook_deliveries"), 404: ok("not this project's") },
      },
    },
  };
}
