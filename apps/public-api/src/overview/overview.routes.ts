import { Router } from "express";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { getOverview, type OverviewDeps, overviewQuery } from "./get-overview";
import { projectOf } from "../projects/project-of";

/** The dashboard's overview: GET /admin/projects/:projectId/overview?range=24h|7d|30d&mode=live|test. */
export function overviewRouter(deps: OverviewDeps): Router {
  const r = Router();
  r.get("/projects/:projectId/overview", async (req, res) => {
    const q = parseInput(overviewQuery, req.query);
    const id = await projectOf(deps.db, req.params.projectId);
    const project = await deps.db.prisma.project.findUnique({
      where: { id },
      select: { defaultTimezone: true, dailySendCap: true },
    });
    if (!project) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
    res.json({ success: true, ...(await getOverview(deps, { id, ...project }, q)) });
  });
  return r;
}
