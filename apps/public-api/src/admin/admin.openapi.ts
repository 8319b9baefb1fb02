import { z } from "zod";
import { projectPaths } from "../projects/projects.openapi";
import { overviewPaths } from "../overview/overview.openapi";
import { templatePaths } from "../templates/templates.openapi";
import { senderPaths } from "../domains/senders.openapi";
import { adminDomainPaths } from "../domains/admin-domains.openapi";
import { leadPaths } from "../leads/admin-leads.openapi";
import { segmentPaths } from "../segments/admin-segments.openapi";
import { eventPaths } from "../events/admin-events.openapi";
import { campaignPaths } from "../campaigns/admin-campaigns.openapi";
import { shopPaths } from "../shops/admin-shops.openapi";
import { inboundPaths } from "../threads/admin-inbound.routes";
import { importPaths } from "../imports/imports.openapi";
import { accountPaths } from "../accounts/accounts.openapi";
import { activityPaths } from "../activity/activity.routes";
import { legacyDeliveryPaths, webhookPaths } from "../webhooks/webhooks.openapi";
import { suppressionPaths } from "../suppressions/suppressions.openapi";

const json = (schema: z.ZodType) => ({
  content: {
    "application/json": { schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) },
  },
});
const ok = (description: string) => ({ description });
/** The answers every route can give besides its success (body `{ success: false, error }`). */
const errors = {
  400: ok("invalid input"),
  401: ok("missing or wrong admin token"),
  404: ok("not found"),
  413: ok("body too large"),
};
/** OpenAPI 3.1 description of the admin API, with request bodies generated from the same zod schemas. */
export function adminOpenApi() {
  const doc = {
    openapi: "3.1.0",
    info: { title: "Email service admin API (internal)", version: "1.0.0" },
    components: { securitySchemes: { adminToken: { type: "http", scheme: "bearer" } } },
    security: [{ adminToken: [] }],
    paths: {
      ...projectPaths(json, ok),
      ...overviewPaths(ok),
      ...templatePaths(json, ok),
      ...senderPaths(json, ok),
      ...adminDomainPaths(json, ok),
      ...leadPaths(json, ok),
      ...segmentPaths(json, ok),
      ...eventPaths(ok),
      ...campaignPaths(json, ok),
      ...shopPaths(json, ok),
      ...inboundPaths(ok),
      ...importPaths(json, ok),
      ...accountPaths(json, ok),
      ...activityPaths(ok),
      ...webhookPaths(ok),
      ...suppressionPaths(ok),
      ...legacyDeliveryPaths(ok),
    },
  };
  for (const item of Object.values(doc.paths) as Record<string, unknown>[])
    for (const op of Object.values(item))
      if (op && typeof op === "object" && "responses" in op)
        (op as { responses: Record<string, unknown> }).responses = {
          ...errors,
          ...(op as { responses: object }).responses,
        };
  return doc;
}
