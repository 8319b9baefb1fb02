import { Router } from "express";
import { createSegmentSchema, listEventsQuery, listLeadsQuery } from "@emailsvc/contracts";
import { countSegmentMembers, type Db, deleteSegment } from "@emailsvc/db";
import { parseInput } from "@emailsvc/http";
import { listEvents } from "../events/list-events";
import { listLeads } from "./list-leads";
import { createSegment } from "../segments/create-segment";
import { listSegments } from "../segments/list-segments";
import { findSegment, segmentView } from "../segments/segment-row";
import { projectOf } from "../admin/project-of";

/**
 * Admin: a project's segments (created here, since the spec's dashboard creates them), and read-only listings of
 * its leads and events for the CLI and the dashboard (the same filters and pages as the v1 listings).
 */
export function adminLeadsRouter(deps: { db: Db }): Router {
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

  r.get("/projects/:projectId/leads", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json((await listLeads(db, projectId, parseInput(listLeadsQuery, req.query), {})).body);
  });

  r.get("/projects/:projectId/events", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json((await listEvents(db, projectId, parseInput(listEventsQuery, req.query))).body);
  });

  return r;
}
