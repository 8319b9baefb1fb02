import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import { projectIdOf } from "@emailsvc/contracts";
import { createEventTracker } from "@emailsvc/db";
import { authFailureGuard, finishApp, internalAuth, jsonBody, requireJson } from "@emailsvc/http";
import { baseApp, type Traffic } from "@emailsvc/runtime";
import { accountsRouter } from "./accounts/accounts.routes";
import { adminAccess } from "./accounts/admin-access";
import { invitationsRouter } from "./invitations/invitations.routes";
import { activityRouter } from "./activity/activity.routes";
import { suppressionsRouter } from "./suppressions/suppressions.routes";
import { webhooksRouter } from "./webhooks/webhooks.routes";
import { auditRouter } from "./audit/audit.routes";
import { recordAudit } from "./audit/record-audit";
import { adminRouter } from "./admin/admin.routes";
import type { Deps } from "./deps";
import { eventsFastPath } from "./events/events.fast-path";
import { eventsRouter } from "./events/events.routes";
import { importsRouter } from "./imports/imports.routes";
import { triggerJobRouter } from "./imports/trigger-job.routes";
import { leadsRouter } from "./leads/leads.routes";
import { rateLimits } from "./listing/rate-limits";
import { dashboardRouter } from "./dashboard/dashboard.routes";
import { docsRouter } from "./docs/docs.routes";
import { batchRouter } from "./sends/batch.routes";
import { scheduledSendsRouter } from "./sends/scheduled-sends.routes";
import { internalSenderAllowlist } from "./internal-access/sender-allowlist";
import { internalSendRouter, SEND_BODY_LIMIT, v1SendRouter } from "./sends/send.routes";
import type { SendDeps } from "./sends/send-deps";
import { chargedToday } from "./sends/send-limits";
import { threadsRouter } from "./threads/threads.routes";

export function sendDepsOf(deps: Deps): SendDeps {
  return {
    db: deps.db,
    broker: deps.broker,
    logger: deps.logger,
    downloader: deps.downloader,
    store: deps.attachmentStore,
    templateCache: deps.templateCache,
    outbox: deps.outbox,
    accepts: deps.accepts,
    rpcTimeoutMs: deps.env.SEND_RPC_TIMEOUT_MS,
    laneFor: deps.sendLimits.laneFor,
  };
}

/**
 * Public port: the /v1 API (Bearer key). `fastPaths: false` leaves every request to Express (the tests compare
 * both answers; an operator can set EVENTS_FAST_PATH=false to rule the fast path out).
 */
export function createApp(deps: Deps, lifecycle?: Traffic, opts: { fastPaths?: boolean } = {}): Express {
  const app = baseApp(deps, lifecycle);
  // an address sending unknown keys is refused before its next key is looked up (issue 49)
  app.use(
    authFailureGuard({
      redis: deps.redis,
      limit: deps.env.AUTH_FAILURE_LIMIT,
      windowMs: deps.env.RATE_LIMIT_WINDOW_MS,
      onStoreError: (err) =>
        deps.logger.warn({ err: (err as Error)?.message }, "auth failure count unavailable"),
    }),
  );
  app.use(docsRouter());
  app.use(
    v1SendRouter({
      send: sendDepsOf(deps),
      limits: deps.sendLimits,
      lookupApiKey: deps.lookupApiKey,
      idempotencyStore: deps.idempotencyStore,
      logger: deps.logger,
    }),
  );
  app.use(scheduledSendsRouter({ db: deps.db, lookupApiKey: deps.lookupApiKey }));
  app.use(
    batchRouter({
      send: sendDepsOf(deps),
      limits: deps.sendLimits,
      lookupApiKey: deps.lookupApiKey,
      idempotencyStore: deps.idempotencyStore,
      logger: deps.logger,
    }),
  );
  const limits = rateLimits(deps);
  const track = createEventTracker(deps.db);
  app.use(eventsRouter({ db: deps.db, track, lookupApiKey: deps.lookupApiKey, rateLimit: limits.events }));
  app.use(leadsRouter({ db: deps.db, lookupApiKey: deps.lookupApiKey, rateLimit: limits.leads }));
  app.use(
    threadsRouter({ db: deps.db, lookupApiKey: deps.lookupApiKey, readInboundMime: deps.readInboundMime }),
  );
  finishApp(app, deps.logger);
  if (!(opts.fastPaths ?? deps.env.EVENTS_FAST_PATH)) return app;
  // An Express app is `(req, res, next) => app.handle(req, res, next)`: the fast path in front of `handle` serves
  // POST /v1/events for the real server and for supertest alike, before Express touches the request.
  const events = eventsFastPath({
    track,
    lookupApiKey: deps.lookupApiKey,
    countEvent: limits.countEvent,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  const handle = (app as unknown as { handle: Handle }).handle.bind(app);
  (app as unknown as { handle: Handle }).handle = (req, res, next) => {
    if (!events(req, res)) handle(req, res, next);
  };
  return app;
}

/** The sign-in throttle and the session's lifetime: sign-in's and an accepted invitation's. */
const signInConfig = (deps: Deps) => ({
  perAccount: deps.env.SIGN_IN_FAILURES_PER_ACCOUNT,
  perAddress: deps.env.SIGN_IN_FAILURES_PER_ADDRESS,
  windowMs: 15 * 60_000,
  maxAgeMs: deps.env.DASHBOARD_SESSION_MAX_DAYS * 24 * 3_600_000,
});

type Handle = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/**
 * Internal port (cluster only, never routed by the gateway): POST /send-email, /trigger-job, /admin. Every route but
 * the health ones (baseApp's, for probes and Prometheus) needs a credential (issue 49 item 2): the INTERNAL_TOKEN,
 * except under /admin, which takes the ADMIN_TOKEN instead (the operator's own, narrower credential: the dashboard
 * and the admin CLI hold it, and the token every platform caller of /send-email holds opens no admin route).
 */
export function createInternalApp(deps: Deps, lifecycle?: Traffic): Express {
  const app = baseApp(deps, lifecycle);
  app.use(internalAuth({ token: deps.env.INTERNAL_TOKEN, exceptPrefixes: ["/admin", "/dashboard"] }));
  // The operator's optional sender allowlist of sends without x-project-id, after the body is parsed (the send
  // route's own parser then finds it parsed); off by default, as the spec reads.
  if (deps.env.INTERNAL_SEND_SENDER_ALLOWLIST.length)
    app.post(
      "/send-email",
      requireJson,
      ...jsonBody({ limit: SEND_BODY_LIMIT }),
      internalSenderAllowlist(deps.env.INTERNAL_SEND_SENDER_ALLOWLIST),
    );
  app.use(internalSendRouter({ send: sendDepsOf(deps) }));
  const imports = { db: deps.db, ...deps.imports, kickOutbox: () => deps.outbox.kick() };
  app.use(triggerJobRouter(imports));
  app.use(dashboardRouter({ dist: deps.env.DASHBOARD_DIST })); // the web app's pages, before the admin API
  // The admin API: the admin token (CLI, automation) or a signed-in user's session with its role in the project;
  // every change is written to the audit log.
  app.use(
    "/admin",
    adminAccess(
      { db: deps.db },
      {
        adminToken: deps.env.ADMIN_TOKEN,
        idleMs: deps.env.DASHBOARD_SESSION_IDLE_MINUTES * 60_000,
        allowedOrigins: deps.env.DASHBOARD_ORIGINS,
      },
    ),
    recordAudit({ db: deps.db, logger: deps.logger }),
  );
  // Before the admin API's JSON body parser: an upload's body is the file itself.
  app.use("/admin", importsRouter(imports));
  app.use(
    "/admin",
    jsonBody({ limit: "2mb" }),
    accountsRouter({
      db: deps.db,
      redis: deps.redis,
      logger: deps.logger,
      secureCookies: deps.env.DASHBOARD_SECURE_COOKIES,
      signIn: signInConfig(deps),
    }),
    invitationsRouter({
      db: deps.db,
      redis: deps.redis,
      logger: deps.logger,
      kickOutbox: () => deps.outbox.kick(),
      secureCookies: deps.env.DASHBOARD_SECURE_COOKIES,
      signIn: signInConfig(deps),
      config: {
        from: deps.env.DASHBOARD_INVITE_FROM,
        projectId: deps.env.DASHBOARD_INVITE_PROJECT_ID
          ? projectIdOf(deps.env.DASHBOARD_INVITE_PROJECT_ID)
          : undefined,
        ttlHours: deps.env.DASHBOARD_INVITE_TTL_HOURS,
        publicUrl: deps.env.DASHBOARD_PUBLIC_URL,
      },
    }),
    auditRouter({ db: deps.db }),
    activityRouter({ db: deps.db }),
    webhooksRouter({ db: deps.db, kickOutbox: () => deps.outbox.kick() }),
    suppressionsRouter({ db: deps.db }),
    adminRouter({
      db: deps.db,
      encryptionKey: deps.env.API_KEY_ENCRYPTION_KEY,
      onTemplateChanged: (projectId, templateId) => deps.templateCache.invalidate(projectId, templateId),
      onKeysChanged: (projectId) => deps.apiKeys.keysChanged(projectId),
      domainService: deps.domainService,
      kickOutbox: () => deps.outbox.kick(),
      overview: {
        chargedToday: (projectId) => chargedToday(deps.redis, projectId),
        providerQuota: deps.providerQuota,
        defaultDailyCap: deps.env.SEND_DAILY_CAP,
      },
      campaigns: {
        templateCache: deps.templateCache,
        publicBaseUrl: deps.env.PUBLIC_BASE_URL,
        production: deps.env.NODE_ENV === "production",
      },
    }),
  );
  return finishApp(app, deps.logger);
}
