import {
  createS3Client,
  createSesClient,
  providerConfigFromEnv,
  sesMessageIdDomain,
} from "@emailsvc/provider";
import type { Logger } from "@emailsvc/observability";
import {
  type BaseDeps,
  createBaseDeps,
  createOutbox,
  createRedis,
  type Outbox,
  type Redis,
} from "@emailsvc/runtime";
import type { Env } from "./env";
import { createRateLimiter } from "./infra/rate-limiter";
import { createPostalAddresses, createSendStatements } from "@emailsvc/db";
import type { SendActivityDeps } from "./use-cases/send-activity";

export interface Deps extends BaseDeps {
  env: Env;
  redis: Redis;
  outbox: Outbox;
  send: SendActivityDeps;
}

export async function createDeps(env: Env): Promise<Deps> {
  // Its batch statements over `activities` are planned for each batch (queryPlanned), parsed once.
  const base = await createBaseDeps("send-worker", env, { db: { planEachCall: true } });
  const redis = createRedis(env.REDIS_URL, base.logger, { purpose: "send rate limiter" });
  const outbox = createOutbox(base);
  const callHeld = base.metrics.histogram(
    "send_rate_place_held_seconds",
    "Provider calls under the send rate limit: from the limiter's check to the provider's answer. The rate reached is the limit × 1 s / (1 s + this)",
    [],
    [0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );
  const send: SendActivityDeps = {
    db: base.db,
    // the Message-ID SES gives the email, stored at mark-sent for inbound replies' In-Reply-To
    statements: createSendStatements(base.db, {
      messageIdDomain: sesMessageIdDomain(env.AWS_REGION),
      // email.sent goes to this worker's relay straight from the mark-sent statement: no lease statement
      handoff: outbox.handoff,
    }),
    ses: createSesClient(
      providerConfigFromEnv(env, "ses", {
        requestTimeoutMs: env.PROVIDER_TIMEOUT_MS,
        // The SDK never retries a send behind the worker's back: a retry would skip the global rate limiter (a
        // throttled call came straight back as another throttle) and, after a timeout, could send an email SES
        // had already accepted. Throttling and transient errors are retried by the worker, each with a new slot.
        maxAttempts: 1,
      }),
    ),
    s3: createS3Client(providerConfigFromEnv(env, "s3")),
    limiter: createRateLimiter(redis, {
      perSecond: env.SEND_RATE_PER_SECOND,
      key: env.SEND_RATE_KEY,
      bulkMaxAheadMs: env.SEND_BULK_MAX_AHEAD_MS,
      // a call unanswered this long has timed out (and been answered); past it a killed worker's call ages out
      holdMs: env.PROVIDER_TIMEOUT_MS + 5000,
      onAnswered: (ms) => callHeld.observe(ms / 1000),
    }),
    postalAddress: createPostalAddresses(base.db),
    logger: base.logger,
    attachmentsBucket: env.ATTACHMENTS_BUCKET,
    inboundDomain: env.INBOUND_DOMAIN,
    tracking: { baseUrl: env.PUBLIC_BASE_URL, secret: env.TRACKING_SECRET },
    kickOutbox: () => outbox.kick(),
    messageCache: new Map(),
    providerTimeoutMs: env.PROVIDER_TIMEOUT_MS,
    ...(env.SEND_TEST_HOLD_AFTER_CLAIMS === undefined
      ? {}
      : { afterClaim: holdAfterClaims(env.SEND_TEST_HOLD_AFTER_CLAIMS, env.NODE_ENV, base.logger) }),
  };
  return { ...base, env, redis, outbox, send };
}

/**
 * The test hook of SEND_TEST_HOLD_AFTER_CLAIMS: the first `n` claims go on to the provider, every later one waits
 * forever, so a test kills the worker deterministically between a claim and its provider call. Refused in
 * production, where it would stop sending.
 */
function holdAfterClaims(n: number, nodeEnv: string, logger: Logger): () => Promise<void> {
  if (nodeEnv === "production")
    throw new Error("SEND_TEST_HOLD_AFTER_CLAIMS is a test hook: not in production");
  let claims = 0;
  return () => {
    if (++claims <= n) return Promise.resolve();
    logger.warn({ claims }, "test hook: holding a claimed send before its provider call");
    return new Promise<void>(() => undefined);
  };
}
