import type { Express } from "express";
import { apiKeyAuth, finishApp, jsonBody, type Lifecycle } from "@emailsvc/http";
import { baseApp } from "@emailsvc/runtime";
import type { Deps } from "./deps";
import { domainsRouter } from "./routes/domains.routes";
import { verifyEmailRouter } from "./routes/verify-email.routes";

export function createApp(deps: Deps, lifecycle?: Pick<Lifecycle, "isAcceptingTraffic">): Express {
  const app = baseApp(deps, lifecycle);
  // Every /domains route needs the Bearer key (spec 5.1); verify-email routes first, before /domains/:domain.
  app.use("/domains", apiKeyAuth(deps.lookupApiKey), jsonBody({ limit: "64kb" }));
  app.use(verifyEmailRouter({ db: deps.db, provider: deps.provider }));
  app.use(
    domainsRouter({ db: deps.db, provider: deps.provider, logger: deps.logger, resolveTxt: deps.resolveTxt }),
  );
  return finishApp(app, deps.logger);
}
