import { Router } from "express";
import {
  CAMPAIGN_RECIPIENT_STATUSES,
  CAMPAIGN_STATUSES,
  campaignCreateSchema,
  campaignTestSendSchema,
  campaignUpdateSchema,
  isEmailAddress,
  senderDomain,
} from "@emailsvc/contracts";
import {
  campaignStats,
  findCampaign,
  listCampaignRecipients,
  listCampaigns,
  setDomainWarmup,
} from "@emailsvc/db";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { z } from "zod";
import type { CampaignDeps } from "./campaign-deps";
import { createCampaign } from "./create-campaign";
import { campaignView } from "./campaign-view";
import { contentOf, contentOfRow } from "./campaign-content";
import { duplicateCampaign } from "./duplicate-campaign";
import { cancelCampaign, pauseCampaign, resumeCampaign } from "./manage-campaign";
import { preflightCampaign } from "./preflight-campaign";
import { sendTestCampaign } from "./send-test-campaign";
import { updateCampaign } from "./update-campaign";
import { projectOf } from "../projects/project-of";

const listQuery = z.strictObject({
  status: z
    .enum(CAMPAIGN_STATUSES, { error: `status must be one of ${CAMPAIGN_STATUSES.join(", ")}` })
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
const recipientsQuery = z.strictObject({
  status: z
    .enum(CAMPAIGN_RECIPIENT_STATUSES, {
      error: `status must be one of ${CAMPAIGN_RECIPIENT_STATUSES.join(", ")}`,
    })
    .optional(),
  after: z.uuid({ error: "after must be a recipient id" }).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});
/** A sending domain's warm-up ramp: campaign emails on day 1, 2, … (none after the last); null: the default. */
export const warmupSchema = z.strictObject({
  ramp: z.array(z.number().int().min(0).max(10_000_000)).max(365).nullable(),
});

/**
 * Admin: a project's campaigns (what the spec's dashboard does): create (after the pre-flight check), list, show
 * with stats, change before it starts, pause, resume, cancel, duplicate, a test send, its recipients; and the
 * warm-up ramp of a sending domain.
 */
export function adminCampaignsRouter(deps: CampaignDeps): Router {
  const { db } = deps;
  const r = Router();
  const base = "/projects/:projectId/campaigns";

  r.post(`${base}/preflight`, async (req, res) => {
    const body = parseInput(campaignCreateSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    res.json({ success: true, preflight: await preflightCampaign(deps, projectId, contentOf(body)) });
  });

  r.post(base, async (req, res) => {
    const body = parseInput(campaignCreateSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    const { campaign, preflight } = await createCampaign(deps, projectId, contentOf(body));
    res.status(201).json({ success: true, campaign: campaignView(campaign), preflight });
  });

  r.get(base, async (req, res) => {
    const q = parseInput(listQuery, req.query);
    const projectId = await projectOf(db, req.params.projectId);
    const rows = await listCampaigns(db, projectId, q);
    res.json({ success: true, campaigns: rows.map((c) => campaignView(c)) });
  });

  const found = async (projectId: string, id: string) => {
    const c = await findCampaign(db, await projectOf(db, projectId), id);
    if (!c) throw new AppError(ErrorCode.NOT_FOUND, "Campaign not found");
    return c;
  };

  r.get(`${base}/:id`, async (req, res) => {
    const c = await found(req.params.projectId, req.params.id);
    res.json({ success: true, campaign: campaignView(c, await campaignStats(db, c.project_id, c.id)) });
  });

  r.get(`${base}/:id/preflight`, async (req, res) => {
    const c = await found(req.params.projectId, req.params.id);
    res.json({ success: true, preflight: await preflightCampaign(deps, c.project_id, contentOfRow(c)) });
  });

  r.patch(`${base}/:id`, async (req, res) => {
    const body = parseInput(campaignUpdateSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    const { campaign, preflight } = await updateCampaign(deps, projectId, req.params.id, body);
    res.json({ success: true, campaign: campaignView(campaign), preflight });
  });

  r.post(`${base}/:id/pause`, async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json({ success: true, campaign: campaignView(await pauseCampaign(deps, projectId, req.params.id)) });
  });

  r.post(`${base}/:id/resume`, async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const { campaign, previousStatus } = await resumeCampaign(deps, projectId, req.params.id);
    res.json({ success: true, previousStatus, campaign: campaignView(campaign) });
  });

  r.post(`${base}/:id/cancel`, async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const out = await cancelCampaign(deps, projectId, req.params.id);
    res.json({
      success: true,
      campaign: campaignView(out.campaign),
      cancelled_recipients: out.cancelledRecipients,
      cancelled_sends: out.cancelledSends,
    });
  });

  r.post(`${base}/:id/duplicate`, async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const { campaign, preflight } = await duplicateCampaign(deps, projectId, req.params.id);
    res.status(201).json({ success: true, campaign: campaignView(campaign), preflight });
  });

  r.post(`${base}/:id/test-send`, async (req, res) => {
    const { email } = parseInput(campaignTestSendSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    const out = await sendTestCampaign(deps, projectId, req.params.id, email);
    res.status(out.status).json(out.body);
  });

  r.get(`${base}/:id/recipients`, async (req, res) => {
    const q = parseInput(recipientsQuery, req.query);
    const c = await found(req.params.projectId, req.params.id);
    const rows = await listCampaignRecipients(db, c.project_id, c.id, q);
    res.json({
      success: true,
      recipients: rows.map((x) => ({
        id: x.id,
        lead_id: x.lead_id,
        email: x.email,
        status: x.status,
        reason: x.reason,
        dispatched_at: x.dispatched_at?.toISOString() ?? null,
        updated_at: x.updated_at?.toISOString() ?? null,
      })),
    });
  });

  r.put("/projects/:projectId/warmups/:domain", async (req, res) => {
    const { ramp } = parseInput(warmupSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    // the domain part of a sender address, by the same rule (a NUL or a space reached PostgreSQL: a 500)
    if (!isEmailAddress(`x@${req.params.domain}`))
      throw new AppError(ErrorCode.VALIDATION, "domain is not a valid domain name");
    const domain = senderDomain(`x@${req.params.domain}`);
    await setDomainWarmup(db, projectId, domain, ramp);
    res.json({ success: true, domain, ramp });
  });

  return r;
}
