import { Router } from "express";
import { z } from "zod";
import { isUuid, projectIdOf } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { listAudit } from "./audit.repo";

export const listAuditQuery = z.object({
  action: z.string().trim().max(100).optional(),
  actor: z.string().trim().max(320).optional(),
  since: z.iso.datetime({ offset: true, error: "since must be an ISO 8601 date-time" }).optional(),
  until: z.iso.datetime({ offset: true, error: "until must be an ISO 8601 date-time" }).optional(),
  before: z
    .uuid({ error: "before must be the id of an event (next_before of the previous page)" })
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** GET /admin/projects/:projectId/audit-events: the project's audit log, newest first, keyset-paged; read-only. */
export function auditRouter(deps: { db: Db }): Router {
  const r = Router();
  r.get("/projects/:projectId/audit-events", async (req, res) => {
    const id = String(req.params.projectId);
    if (!isUuid(id)) throw new AppError(ErrorCode.VALIDATION, "projectId must be a UUID");
    const q = parseInput(listAuditQuery, req.query);
    const rows = await listAudit(deps.db, projectIdOf(id), {
      ...(q.action ? { action: q.action } : {}),
      ...(q.actor ? { actor: q.actor } : {}),
      ...(q.since ? { since: new Date(q.since) } : {}),
      ...(q.until ? { until: new Date(q.until) } : {}),
      ...(q.before ? { before: q.before } : {}),
      limit: q.limit,
    });
    res.json({
      success: true,
      events: rows.map((e) => ({
        id: e.id,
        action: e.action,
        route: e.route,
        status: e.status,
        actor: { type: e.actor_type, email: e.actor_email },
        ip: e.ip,
        user_agent: e.user_agent,
        detail: e.detail,
        created_at: e.created_at.toISOString(),
      })),
      next_before: rows.length === q.limit ? rows.at(-1)!.id : null,
    });
  });
  return r;
}
