import type { z } from "zod";
import { campaignCreateSchema, campaignTestSendSchema, campaignUpdateSchema } from "@emailsvc/contracts";
import { warmupSchema } from "./admin-campaigns.routes";
import { type Ok } from "../docs/openapi-parts";

type Json = (schema: z.ZodType) => unknown;

const id = (name: string, format?: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string", ...(format ? { format } : {}) },
});

/** The campaign routes of the admin API (spec 1.8, 3), for adminOpenApi. */
export function campaignPaths(json: Json, ok: Ok) {
  const project = id("projectId", "uuid");
  const campaign = [project, id("id", "uuid")];
  const action = (summary: string, extra: Record<string, unknown> = {}) => ({
    parameters: campaign,
    post: { summary, ...extra, responses: { 200: ok("campaign"), 409: ok("not in a state that allows it") } },
  });
  return {
    "/admin/projects/{projectId}/campaigns": {
      parameters: [project],
      get: {
        summary: "The project's campaigns, newest first (optionally of one status)",
        parameters: [
          { name: "status", in: "query", required: false, schema: { type: "string" } },
          { name: "limit", in: "query", required: false, schema: { type: "integer" } },
        ],
        responses: { 200: ok("campaigns") },
      },
      post: {
        summary:
          "Create a campaign: the pre-flight check runs first (a blocking error is a 400 with `preflight`); it is " +
          "`initializing` until campaign-dispatcher has written its recipient ledger, then `pending`",
        requestBody: json(campaignCreateSchema),
        responses: { 201: ok("campaign and its pre-flight check") },
      },
    },
    "/admin/projects/{projectId}/campaigns/preflight": {
      parameters: [project],
      post: {
        summary: "The pre-flight check of a campaign body, without creating it",
        requestBody: json(campaignCreateSchema),
        responses: { 200: ok("errors, warnings, recipients, exclusions by reason, missing variables") },
      },
    },
    "/admin/projects/{projectId}/campaigns/{id}": {
      parameters: campaign,
      get: {
        summary: "A campaign: status and reason, batchMode / currentBatch / totalBatches, progress and stats",
        responses: { 200: ok("campaign with stats") },
      },
      patch: {
        summary: "Change a campaign that has not started (a new audience rewrites its ledger)",
        requestBody: json(campaignUpdateSchema),
        responses: { 200: ok("campaign"), 409: ok("it has started") },
      },
    },
    "/admin/projects/{projectId}/campaigns/{id}/preflight": {
      parameters: campaign,
      get: { summary: "The pre-flight check of a stored campaign", responses: { 200: ok("pre-flight") } },
    },
    "/admin/projects/{projectId}/campaigns/{id}/pause": action(
      "Pause a pending, processing or rate-limited campaign",
    ),
    "/admin/projects/{projectId}/campaigns/{id}/resume": action(
      "Resume a paused or rate-limited campaign (start a pending one now), as POST /trigger-campaign",
    ),
    "/admin/projects/{projectId}/campaigns/{id}/cancel": action(
      "Cancel: pending recipients are never sent; sends not yet claimed by a send-worker are cancelled",
    ),
    "/admin/projects/{projectId}/campaigns/{id}/duplicate": {
      parameters: campaign,
      post: { summary: "A new campaign with this one's settings", responses: { 201: ok("the copy") } },
    },
    "/admin/projects/{projectId}/campaigns/{id}/test-send": {
      parameters: campaign,
      post: {
        summary: "Send the campaign to one address ([Test] subject; not a recipient, not in its stats)",
        requestBody: json(campaignTestSendSchema),
        responses: { 200: ok("queued, or skipped when the address is suppressed") },
      },
    },
    "/admin/projects/{projectId}/campaigns/{id}/recipients": {
      parameters: campaign,
      get: {
        summary:
          "The campaign's recipient ledger in order, optionally of one status (keyset paging with `after`)",
        parameters: ["status", "after", "limit"].map((name) => ({
          name,
          in: "query",
          required: false,
          schema: { type: "string" },
        })),
        responses: { 200: ok("recipients") },
      },
    },
    "/admin/projects/{projectId}/warmups/{domain}": {
      parameters: [project, id("domain")],
      put: {
        summary:
          "A sending domain's warm-up ramp: campaign emails on day 1, 2, … (null: the default 50,000, 75,000)",
        requestBody: json(warmupSchema),
        responses: { 200: ok("the ramp") },
      },
    },
  };
}
