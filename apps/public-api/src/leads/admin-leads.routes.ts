import { Router } from "express";
import { leadTagsSchema, leadTimelineQuery, leadUpdateSchema, listLeadsQuery } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { parseInput } from "@emailsvc/http";
import { objectBody } from "../listing/request";
import { projectOf } from "../projects/project-of";
import { deleteLead } from "./delete-lead";
import { getLead } from "./get-lead";
import { getLeadTimeline } from "./get-lead-timeline";
import { splitLeadsQuery } from "./lead-query";
import { addLeadTags, removeLeadTags } from "./lead-tags";
import { listLeads } from "./list-leads";
import { updateLead } from "./update-lead";

/**
 * Admin: a project's leads for the CLI and the dashboard: the list (the same filters and pages as GET /v1/leads),
 * one lead with its segments and timeline, and its changes through the v1 routes' own use cases.
 */
export function adminLeadsRouter(deps: { db: Db }): Router {
  const { db } = deps;
  const r = Router();
  const lead = "/projects/:projectId/leads/:leadId";
  const ref = (params: Record<string, string | undefined>) => params.leadId as string;

  r.get("/projects/:projectId/leads", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const { rest, attributes } = splitLeadsQuery(req.query);
    const out = await listLeads(db, projectId, parseInput(listLeadsQuery, rest), attributes);
    // the v1 route says it in X-Total-Count-Exact; the dashboard reads it here ("about N" past 10,000)
    res.json({ ...(out.body as object), total_exact: out.total.exact });
  });

  r.get(lead, async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json({ success: true, lead: await getLead(db, projectId, ref(req.params)) });
  });
  r.put(lead, async (req, res) => {
    const input = parseInput(leadUpdateSchema, objectBody(req));
    const projectId = await projectOf(db, req.params.projectId);
    res.json(await updateLead(db, projectId, ref(req.params), input));
  });
  r.delete(lead, async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json(await deleteLead(db, projectId, ref(req.params)));
  });

  r.post(`${lead}/tags`, async (req, res) => {
    const { tags } = parseInput(leadTagsSchema, objectBody(req));
    const projectId = await projectOf(db, req.params.projectId);
    res.json(await addLeadTags(db, projectId, ref(req.params), tags));
  });
  r.delete(`${lead}/tags`, async (req, res) => {
    const { tags } = parseInput(leadTagsSchema, objectBody(req));
    const projectId = await projectOf(db, req.params.projectId);
    res.json(await removeLeadTags(db, projectId, ref(req.params), tags));
  });

  r.get(`${lead}/timeline`, async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json(
      await getLeadTimeline({ db }, projectId, ref(req.params), parseInput(leadTimelineQuery, req.query)),
    );
  });

  return r;
}
