import { Router } from "express";
import { createSegmentSchema, segmentPreviewSchema } from "@emailsvc/contracts";
import { countSegmentMembers, type Db, deleteSegment, previewSegmentCount } from "@emailsvc/db";
import { parseInput } from "@emailsvc/http";
import { createSegment } from "./create-segment";
import { listSegments } from "./list-segments";
import { findSegment, segmentView } from "./segment-row";
import { projectOf } from "../projects/project-of";

/** The preview's count budget: past it the planner's estimate answers (issue 46: under 1 s on 1,000,000 leads). */
const PREVIEW_BUDGET_MS = 700;

/** Admin: a project's segments, created here since the spec's dashboard creates them, with live member counts. */
export function adminSegmentsRouter(deps: { db: Db }): Router {
  const { db } = deps;
  const r = Router();

  r.post("/projects/:projectId/segments", async (req, res) => {
    const body = parseInput(createSegmentSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    const segment = await createSegment(db, projectId, body);
    res.status(201).json({
      success: true,
      segment: segmentView(segment, await countSegmentMembers(db, projectId, segment)),
    });
  });

  // Before /segments/:segmentId. The builder asks on every pause in typing: a count past the budget is estimated.
  r.post("/projects/:projectId/segments/preview", async (req, res) => {
    const { filter } = parseInput(segmentPreviewSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    const { total, exact } = await previewSegmentCount(db, projectId, filter, PREVIEW_BUDGET_MS);
    res.json({ success: true, count: total, exact });
  });

  r.get("/projects/:projectId/segments", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json({ success: true, segments: await listSegments(db, projectId) });
  });

  r.get("/projects/:projectId/segments/:segmentId", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const segment = await findSegment(db, projectId, req.params.segmentId);
    res.json({
      success: true,
      segment: segmentView(segment, await countSegmentMembers(db, projectId, segment)),
    });
  });

  r.delete("/projects/:projectId/segments/:segmentId", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const segment = await findSegment(db, projectId, req.params.segmentId);
    await deleteSegment(db, projectId, segment.id);
    res.json({ success: true, id: segment.id, deleted: true });
  });

  return r;
}
