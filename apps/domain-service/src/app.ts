import type { Express } from "express";
import {
  apiKeyAuth,
  authFailureGuard,
  finishApp,
  getAuth,
  jsonBody,
  type Lifecycle,
  rateLimit,
} from "@emailsvc/http";
import { baseApp } from "@emailsvc/runtime";
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
  app.use(verifyEmailRouter({ db: deps.db, provider: deps.provider }));
  app.use(
    domainsRouter({ db: deps.db, provider: deps.provider, logger: deps.logger, resolveTxt: deps.resolveTxt }),
  );
  return finishApp(app, deps.logger);
}
