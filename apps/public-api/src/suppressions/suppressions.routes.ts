import { Router } from "express";
import { z } from "zod";
import { isEmailAddress, isUuid, type ProjectId, projectIdOf } from "@emailsvc/contracts";
import {
  addSuppression,
  type Db,
  listSuppressions,
  removeSuppression,
  SUPPRESSION_REASONS,
  type SuppressionRow,
} from "@emailsvc/db";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";

export const listSuppressionsQuery = z.object({
  /** the start of the address (any case) */
  search: z.string().trim().max(320).optional(),
  reason: z
    .enum(SUPPRESSION_REASONS, { error: `reason must be one of ${SUPPRESSION_REASONS.join(", ")}` })
    .optional(),
  cursor: z.string().max(600).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const addSuppressionBody = z.object({
  email: z.email({ error: "email must be an email address" }).max(320),
  /** why: `manual` unless the operator carries a cause over (e.g. bounces known from another provider) */
  reason: z
    .enum(SUPPRESSION_REASONS, { error: `reason must be one of ${SUPPRESSION_REASONS.join(", ")}` })
    .default("manual"),
});

/** The keyset cursor: the last row's address, opaque to the client. */
const encodeCursor = (email: string) => Buffer.from(email).toString("base64url");

function project(id: string): ProjectId {
  if (!isUuid(id)) throw new AppError(ErrorCode.VALIDATION, "projectId must be a UUID");
  return projectIdOf(id);
}

const view = (s: SuppressionRow) => ({
  id: s.id,
  email: s.email,
  reason: s.reason,
  source_activity_id: s.source_activity_id,
  created_at: s.created_at.toISOString(),
});

/**
 * The dashboard's suppressions page (issue 45), scoped by project: the list (address order, keyset-paged, searched
 * by the start of the address), adding one by hand and lifting one. A lifted address is sent to again.
 */
export function suppressionsRouter(deps: { db: Db }): Router {
  const r = Router();

  r.get("/projects/:projectId/suppressions", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const q = parseInput(listSuppressionsQuery, req.query);
    const rows = await listSuppressions(deps.db, projectId, {
      ...(q.search ? { prefix: q.search } : {}),
      ...(q.reason ? { reason: q.reason } : {}),
      ...(q.cursor ? { after: Buffer.from(q.cursor, "base64url").toString() } : {}),
      limit: q.limit,
    });
    const last = rows.at(-1);
    res.json({
      success: true,
      suppressions: rows.map(view),
      next_cursor: last && rows.length === q.limit ? encodeCursor(last.email) : null,
    });
  });

  r.post("/projects/:projectId/suppressions", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const body = parseInput(addSuppressionBody, req.body);
    const { created, row } = await addSuppression(deps.db, projectId, body.email, body.reason);
    if (!created)
      throw new AppError(
        ErrorCode.CONFLICT,
        `${row.email} is already suppressed (${row.reason}, since ${row.created_at.toISOString()})`,
      );
    res.status(201).json({ success: true, suppression: view(row) });
  });

  // by id (what the list gives) or by address (what an operator knows)
  r.delete("/projects/:projectId/suppressions/:suppression", async (req, res) => {
    const projectId = project(String(req.params.projectId));
    const key = String(req.params.suppression);
    // neither an id nor an address (a NUL, which PostgreSQL's text refuses, included): on no list
    if (!isUuid(key) && !isEmailAddress(key))
      throw new AppError(
        ErrorCode.NOT_FOUND,
        "Not on this project's suppression list: give a suppression's id or its email address",
      );
    const removed = await removeSuppression(deps.db, projectId, isUuid(key) ? { id: key } : { email: key });
    if (!removed) throw new AppError(ErrorCode.NOT_FOUND, `${key} is not on this project's suppression list`);
    res.json({ success: true, removed: view(removed) });
  });
  return r;
}
