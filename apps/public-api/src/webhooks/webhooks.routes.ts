import { Router } from "express";
import { z } from "zod";
import { isUuid, type ProjectId, projectIdOf } from "@emailsvc/contracts";
import {
  type Db,
  findDeliveryDetail,
  findWebhookReceivers,
  listDeliveries,
  listProjectDeliveries,
} from "@emailsvc/db";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { redeliverWebhook } from "./redeliver-webhook";
import { projectOf } from "../projects/project-of";
import { decodeCursor, encodeCursor } from "../listing/keyset-cursor";

/** A delivery's states (webhooks.prisma): `failed` is still being retried, `exhausted` gave up after its attempts. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "exhausted", "skipped"] as const;

export const listDeliveriesQuery = z.object({
  /** spec 2: test sends' deliveries are apart from live ones */
  mode: z.enum(["live", "test"], { error: "mode must be live or test" }).default("live"),
  status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(",").map((s) => s.trim()) : undefined))
    .refine((v) => !v || v.every((s) => (DELIVERY_STATUSES as readonly string[]).includes(s)), {
      error: `status must be a comma-separated list of ${DELIVERY_STATUSES.join(", ")}`,
    }),
  event: z
    .string()
    .trim()
    .regex(/^[a-z]+(\.[a-z_-]+)+$/, { error: "event must be an event type such as email.delivered" })
    .optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function project(id: string): ProjectId {
  if (!isUuid(id)) throw new AppError(ErrorCode.VALIDATION, "projectId must be a UUID");
  return projectIdOf(id);
}

/**
 * The dashboard's webhooks page (issue 45), scoped by project: the deliveries (keyset-paged, newest first), one
 * delivery with its attempts, redeliver, and each receiver URL's failing state.
 */
export function webhooksRouter(deps: { db: Db; kickOutbox?: () => void }): Router {
  const r = Router();

  r.get("/projects/:projectId/webhook-deliveries", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const q = parseInput(listDeliveriesQuery, req.query);
    const rows = await listDeliveries(deps.db, projectId, {
      isTest: q.mode === "test",
      ...(q.status ? { statuses: q.status } : {}),
      ...(q.event ? { event: q.event } : {}),
      ...(q.cursor ? { after: decodeCursor(q.cursor) } : {}),
      limit: q.limit,
    });
    const last = rows.at(-1);
    res.json({
      success: true,
      mode: q.mode,
      deliveries: rows.map(deliveryView),
      next_cursor: last && rows.length === q.limit ? encodeCursor(last.created_at, last.id) : null,
    });
  });

  r.get("/projects/:projectId/webhook-deliveries/:deliveryId", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const found = await findDeliveryDetail(deps.db, projectId, String(req.params.deliveryId));
    if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Webhook delivery not found");
    res.json({
      success: true,
      delivery: { ...deliveryView(found.delivery), body: found.delivery.body },
      attempts: found.attempts.map((a) => ({
        attempt: a.attempt_number,
        status_code: a.status_code,
        duration_ms: a.duration_ms,
        error: a.error,
        response_excerpt: a.response_excerpt,
        created_at: a.created_at.toISOString(),
      })),
    });
  });

  // The project's own route of redeliverWebhook: another project's delivery is not found here.
  r.post("/projects/:projectId/webhook-deliveries/:deliveryId/redeliver", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const id = String(req.params.deliveryId);
    await redeliverWebhook(deps.db, id, projectId);
    deps.kickOutbox?.();
    res.json({ success: true, delivery_id: id, status: "pending" });
  });

  r.get("/projects/:projectId/webhook-endpoints", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const p = await findWebhookReceivers(deps.db, projectId);
    if (!p) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
    const endpoint = (
      setting: string,
      kind: string,
      mode: string,
      url: string | null,
      since: Date | null,
    ) => ({
      setting,
      kind,
      mode,
      url,
      // null when healthy (or no URL): since then the dispatcher defers deliveries and probes one at a time
      failing_since: iso(since),
    });
    res.json({
      success: true,
      endpoints: [
        endpoint("webhook_url", "outbound", "live", p.webhook_url, p.webhook_failing_since),
        endpoint("webhook_url_dev", "outbound", "test", p.webhook_url_dev, p.webhook_dev_failing_since),
        endpoint(
          "inbound_webhook_url",
          "inbound",
          "live",
          p.inbound_webhook_url,
          p.inbound_webhook_failing_since,
        ),
        endpoint(
          "inbound_webhook_url_dev",
          "inbound",
          "test",
          p.inbound_webhook_url_dev,
          p.inbound_webhook_dev_failing_since,
        ),
      ],
    });
  });
  return r;
}

function deliveryView(d: Awaited<ReturnType<typeof listDeliveries>>[number]) {
  return {
    id: d.id,
    event_id: d.event_id,
    kind: d.kind,
    event: d.event,
    is_test: d.is_test,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    next_attempt_at: iso(d.next_attempt_at),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}

/** One project's deliveries, optionally of one status (each given once: a repeated parameter is an array). */
const legacyListQuery = z.object({
  project_id: z.uuid({ error: "project_id must be a project UUID" }),
  status: z
    .enum(DELIVERY_STATUSES, { error: `status must be one of ${DELIVERY_STATUSES.join(", ")}` })
    .optional(),
});

/**
 * The CLI's older delivery routes, kept for scripts written against them: the latest 200 deliveries of a project
 * (by `project_id`), and redeliver by id alone.
 */
export function legacyDeliveriesRouter(deps: { db: Db; kickOutbox?: () => void }): Router {
  const r = Router();

  // Re-send a client webhook delivery (e.g. one that exhausted its 5 attempts): see redeliverWebhook.
  r.post("/webhook-deliveries/:deliveryId/redeliver", async (req, res) => {
    const id = req.params.deliveryId;
    await redeliverWebhook(deps.db, id);
    deps.kickOutbox?.();
    res.json({ success: true, delivery_id: id, status: "pending" });
  });

  r.get("/webhook-deliveries", async (req, res) => {
    const { project_id: projectId, status } = parseInput(legacyListQuery, req.query);
    const deliveries = await listProjectDeliveries(
      deps.db,
      await projectOf(deps.db, projectId),
      status ?? null,
    );
    res.json({ success: true, deliveries });
  });

  return r;
}
