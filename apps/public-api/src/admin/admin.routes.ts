import { Router } from "express";
import type { Db } from "@emailsvc/db";
import type { ProjectId } from "@emailsvc/contracts";
import { adminOpenApi } from "./admin.openapi";
import { projectsRouter } from "../projects/projects.routes";
import { overviewRouter } from "../overview/overview.routes";
import type { OverviewDeps } from "../overview/get-overview";
import { templatesRouter } from "../templates/templates.routes";
import { sendersRouter } from "../domains/senders.routes";
import { adminDomainsRouter } from "../domains/admin-domains.routes";
import type { DomainService } from "../domains/domain-service-client";
import { legacyDeliveriesRouter } from "../webhooks/webhooks.routes";
import { adminCampaignsRouter } from "../campaigns/admin-campaigns.routes";
import { adminShopsRouter } from "../shops/admin-shops.routes";
import { adminLeadsRouter } from "../leads/admin-leads.routes";
import { adminSegmentsRouter } from "../segments/admin-segments.routes";
import { adminEventsRouter } from "../events/admin-events.routes";
import { adminInboundRouter } from "../threads/admin-inbound.routes";
import type { CampaignDeps } from "../campaigns/campaign-deps";

export interface AdminDeps {
  db: Db;
  encryptionKey: string;
  kickOutbox?: () => void;
  /** Called after a template edit, so this replica's template cache does not serve the old HTML. */
  onTemplateChanged?: (projectId: ProjectId, templateId: string) => void;
  /** Called after a key was regenerated, so no replica's key cache accepts the old key. */
  onKeysChanged?: (projectId: ProjectId) => Promise<void>;
  /** The campaign routes' own needs (template cache, the unsubscribe links' base); none: no campaign routes. */
  campaigns?: Omit<CampaignDeps, "db" | "kickOutbox">;
  /** domain-service's internal port (the domain routes' changes and live checks); null: those answer 503. */
  domainService?: DomainService | null;
  /** The overview's counters besides the database (the daily cap's, the provider's). */
  overview: Omit<OverviewDeps, "db">;
}

/**
 * The admin API's feature routers, mounted under /admin behind adminAccess (accounts/admin-access.ts: the admin
 * token or a session and its role) and the audit log. Each feature's routes live in its own folder; this file only
 * puts them together, with the OpenAPI document that lists them all.
 */
export function adminRouter(deps: AdminDeps): Router {
  const { db } = deps;
  const r = Router();
  r.get("/openapi.json", (_req, res) => {
    res.json(adminOpenApi());
  });
  r.use(projectsRouter(deps));
  r.use(overviewRouter({ ...deps.overview, db }));
  r.use(templatesRouter(deps));
  r.use(sendersRouter({ db }));
  r.use(adminDomainsRouter({ db, domainService: deps.domainService ?? null }));
  r.use(legacyDeliveriesRouter(deps));
  r.use(adminLeadsRouter({ db }));
  r.use(adminSegmentsRouter({ db }));
  r.use(adminEventsRouter({ db }));
  r.use(adminInboundRouter({ db }));
  r.use(adminShopsRouter({ db, encryptionKey: deps.encryptionKey }));
  if (deps.campaigns)
    r.use(adminCampaignsRouter({ ...deps.campaigns, db, kickOutbox: () => deps.kickOutbox?.() }));
  return r;
}
