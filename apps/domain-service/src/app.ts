import type { Express } from "express";
import {
  apiKeyAuth,
  authFailureGuard,
  finishApp,
  getAuth,
  internalAuth,
  jsonBody,
  type Lifecycle,
  rateLimit,
} from "@emailsvc/http";
import { baseApp } from "@emailsvc/runtime";
import { actForProject } from "./act-for-project";
import type { Deps } from "./deps";
import { domainsRouter } from "./identities/domains.routes";
import { verifyEmailRouter } from "./identities/verify-email.routes";

export function createApp(deps: Deps, lifecycle?: Pick<Lifecycle, "isAcceptingTraffic">): Express {
  const app = baseApp(deps, lifecycle);
  const { limits } = deps;
  const storeDown = (err: unknown) =>
    deps.logger.warn(
      { err: (err as Error)?.message },
      "rate limit store unavailable: requests pass unlimited",
    );
  // Every /domains route needs the Bearer key (spec 5.1), within its per-key limit (issue 49); verify-email routes
  // first, before /domains/:domain.
  app.use(
    "/domains",
    authFailureGuard({
      redis: limits.redis,
      limit: limits.authFailures,
      windowMs: limits.windowMs,
      onStoreError: storeDown,
    }),
    apiKeyAuth(deps.lookupApiKey),
    rateLimit({
      redis: limits.redis,
      limit: limits.requestsPerMinute,
      windowMs: limits.windowMs,
      bucket: "domains",
      keyOf: (res) => getAuth(res).keyId,
      onStoreError: storeDown,
    }),
    jsonBody({ limit: "64kb" }),
  );
  mountIdentityRoutes(app, deps);
  return finishApp(app, deps.logger);
}

/** The spec's /domains routes, the same on both ports (verify-email first, before /domains/:domain). */
function mountIdentityRoutes(app: Express, deps: Deps): void {
  app.use(verifyEmailRouter({ db: deps.db, provider: deps.provider }));
  app.use(
    domainsRouter({ db: deps.db, provider: deps.provider, logger: deps.logger, resolveTxt: deps.resolveTxt }),
  );
}

/**
 * Internal port (cluster only, never routed by the gateway): the same /domains routes for public-api's admin API
 * (the dashboard's Domains page), behind the shared internal token, acting for the project in x-project-id instead
 * of an API key's. The admin API has already checked the operator's role; the domain rules stay here, in the one
 * service that calls the provider's identity API. No per-key rate limit: no key, and the admin API is the caller.
 */
export function createInternalApp(deps: Deps, lifecycle?: Pick<Lifecycle, "isAcceptingTraffic">): Express {
  const app = baseApp(deps, lifecycle);
  app.use(internalAuth({ token: deps.internalToken }));
  app.use("/domains", actForProject(deps.db), jsonBody({ limit: "64kb" }));
  mountIdentityRoutes(app, deps);
  return finishApp(app, deps.logger);
}
