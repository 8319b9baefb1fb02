import { Router } from "express";
import { listLeadsQuery } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { parseInput } from "@emailsvc/http";
import { listLeads } from "./list-leads";
import { projectOf } from "../projects/project-of";

/** Admin: a project's leads for the CLI and the dashboard (the same filters and pages as GET /v1/leads). */
export function adminLeadsRouter(deps: { db: Db }): Router {
  const { db } = deps;
  const r = Router();

  r.get("/projects/:projectId/leads", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json((await listLeads(db, projectId, parseInput(listLeadsQuery, req.query), {})).body);
  });

  return r;
}
