import { Router } from "express";
import { listEventsQuery } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { parseInput } from "@emailsvc/http";
import { listEvents } from "./list-events";
import { projectOf } from "../projects/project-of";

/** Admin: a project's custom events for the CLI and the dashboard (the filters and pages of GET /v1/events). */
export function adminEventsRouter(deps: { db: Db }): Router {
  const { db } = deps;
  const r = Router();

  r.get("/projects/:projectId/events", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json((await listEvents(db, projectId, parseInput(listEventsQuery, req.query))).body);
  });

  return r;
}
