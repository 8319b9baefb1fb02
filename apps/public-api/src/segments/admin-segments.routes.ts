import { Router } from "express";
import { createSegmentSchema } from "@emailsvc/contracts";
import { countSegmentMembers, type Db, deleteSegment } from "@emailsvc/db";
import { parseInput } from "@emailsvc/http";
import { createSegment } from "./create-segment";
import { listSegments } from "./list-segments";
import { findSegment, segmentView } from "./segment-row";
import { projectOf } from "../projects/project-of";

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
