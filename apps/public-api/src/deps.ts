import { type Batcher, findApiKey } from "@emailsvc/db";
import {
  type BaseDeps,
  createBaseDeps,
  createOutbox,
  createRedis,
  type Outbox,
  type Redis,
} from "@emailsvc/runtime";
import type { AttachmentStore } from "./sends/attachments/attachment-store";
import { createSafeDownloader, type SafeDownloader } from "./sends/attachments/safe-download";
import {
  allowAnyAddress,
  type ApiKeyLookup,
  createRedisIdempotencyStore,
  type IdempotencyStore,
} from "@emailsvc/http";
import { type ApiKeyCache, createApiKeyCache } from "./infra/api-key-cache";
import type { ImportDeps } from "./imports/import-deps";
import { createS3Client, createSesClient, providerConfigFromEnv } from "@emailsvc/provider";
import { createProviderQuotaReader, type ProviderQuotaReading } from "./overview/provider-quota";
import { createS3AttachmentStore } from "./sends/attachments/s3-attachment-store";
import {
  type AcceptResult,
  type AcceptSendInput,
  createAcceptBatcher,
  createTemplateCache,
  type TemplateCache,
} from "@emailsvc/sending";
import type { Env } from "./env";
import { createSendLimits, type SendLimits } from "./sends/send-limits";
import { createInboundMimeReader } from "./threads/inbound-mime";
import { createDomainServiceClient, type DomainService } from "./domains/domain-service-client";
import { SEND_LIMITS } from "@emailsvc/contracts";

export interface Deps extends BaseDeps {
  env: Env;
  lookupApiKey: ApiKeyLookup;
  /** The cache behind lookupApiKey; `keysChanged` after a regenerate (spec 5.5: the old key fails at once). */
  apiKeys: ApiKeyCache;
  redis: Redis;
  idempotencyStore: IdempotencyStore;
  templateCache: TemplateCache;
  /** The v1 accepts, group-committed. */
  accepts: Batcher<AcceptSendInput, AcceptResult>;
  /** Per-key request limits, the daily cap and the fair share of the send routes (issue 49). */
  sendLimits: SendLimits;
  downloader: SafeDownloader;
  attachmentStore: AttachmentStore;
  /** The MIME of a received reply, from the inbound bucket (the conversation API's raw view). */
  readInboundMime(key: string): Promise<Buffer>;
  /** domain-service's internal port, for the admin API's domain routes (null: DOMAIN_SERVICE_URL unset). */
  domainService: DomainService | null;
  /** The provider account's 24-hour quota for the overview, read at most once a minute (null: no answer). */
  providerQuota: () => Promise<ProviderQuotaReading | null>;
  /** Contact imports: uploads stream to the imports bucket (IMPORTS_BUCKET) under IMPORT_MAX_FILE_BYTES. */
  imports: Omit<ImportDeps, "db" | "kickOutbox">;
  /** Use cases kick it after a commit; main.ts (or a test harness) starts and stops it. */
  outbox: Outbox;
  /** Closes what createDeps opened beyond the base deps (broker and DB are closed by the runtime). */
  closeExtras(): Promise<void>;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("public-api", env);
  // The idempotency and API-key caches: a request goes on without them when Redis is down (spec 5).
  const redis = createRedis(env.REDIS_URL, base.logger, {
    purpose: "idempotency cache",
    failFast: true,
    connectTimeoutMs: env.REDIS_CONNECT_TIMEOUT_MS,
  });
  const downloader = createSafeDownloader({
    timeoutMs: env.ATTACHMENT_DOWNLOAD_TIMEOUT_MS,
    maxBytes: SEND_LIMITS.attachmentBytes,
    maxRedirects: 5,
    ...(env.ATTACHMENT_URL_ALLOW_PRIVATE ? { allowAddress: allowAnyAddress } : {}),
  });
  const attachmentStore = createS3AttachmentStore(providerConfigFromEnv(env, "s3"), env.ATTACHMENTS_BUCKET);
  const keyCache = createApiKeyCache(
    async (key) => {
      const found = await findApiKey(base.db, key);
      return found ? { projectId: found.projectId, keyId: found.keyId } : null;
    },
    redis,
    base.logger,
  );
  const outbox = createOutbox(base, {
    intervalMs: env.OUTBOX_RELAY_INTERVAL_MS,
    batchSize: env.OUTBOX_RELAY_BATCH_SIZE,
    autoStart: false,
  });
  return {
    ...base,
    env,
    lookupApiKey: keyCache.lookup,
    apiKeys: keyCache,
    redis,
    idempotencyStore: createRedisIdempotencyStore(redis),
    templateCache: createTemplateCache(),
    // a v1 send's email.send-requested goes to this process's relay straight from the accept: no lease statement
    accepts: createAcceptBatcher(base.db, { handoff: outbox.handoff }),
    sendLimits: createSendLimits(
      { db: base.db, redis, logger: base.logger },
      {
        requestsPerMinute: env.SEND_RATE_LIMIT,
        windowMs: env.RATE_LIMIT_WINDOW_MS,
        dailyCap: env.SEND_DAILY_CAP,
        providerRatePerSecond: env.SEND_RATE_PER_SECOND,
        fairShare: env.SEND_FAIR_SHARE,
        fairShareWindowMs: env.SEND_FAIR_SHARE_WINDOW_MS,
      },
    ),
    downloader,
    attachmentStore,
    readInboundMime: createInboundMimeReader(env),
    domainService: env.DOMAIN_SERVICE_URL
      ? createDomainServiceClient({ baseUrl: env.DOMAIN_SERVICE_URL, internalToken: env.INTERNAL_TOKEN })
      : null,
    providerQuota: createProviderQuotaReader(createSesClient(providerConfigFromEnv(env, "ses")), base.logger),
    imports: {
      s3: createS3Client(providerConfigFromEnv(env, "s3")),
      bucket: env.IMPORTS_BUCKET,
      maxFileBytes: env.IMPORT_MAX_FILE_BYTES,
    },
    outbox,
    async closeExtras() {
      await downloader.close();
      keyCache.close();
      redis.disconnect();
    },
  };
}
