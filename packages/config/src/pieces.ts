import { z } from "zod";

// Reusable env pieces; each service's env.ts composes the ones it needs with `.extend(...)`.

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);
const bool = z
  .enum(["true", "false", "1", "0", ""])
  .default("false")
  .transform((v) => v === "true" || v === "1");

export const baseEnv = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Grace period for SIGTERM: stop taking work, finish in-flight, close broker and DB. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(25_000),
});

export const httpEnv = (publicPort: number, internalPort?: number) =>
  z.object({
    HOST: z.string().default("0.0.0.0"),
    PORT: port(publicPort),
    /** Cluster-only routes (internal send, triggers, admin); services without them leave it unset. */
    INTERNAL_PORT: internalPort ? port(internalPort) : z.coerce.number().int().min(1).max(65535).optional(),
  });

export const dbEnv = z.object({
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/emailsvc"),
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
});

export const rabbitEnv = z.object({
  RABBITMQ_URL: z.string().url().default("amqp://guest:guest@127.0.0.1:5672"),
});

export const redisEnv = z.object({
  REDIS_URL: z.string().url().default("redis://127.0.0.1:6379/0"),
});

export const providerEnv = z.object({
  AWS_REGION: z.string().default("us-east-1"),
  /** Local overrides (provider simulator, s3rver); unset in production to reach AWS. */
  SES_ENDPOINT: z.string().url().optional(),
  S3_ENDPOINT: z.string().url().optional(),
  SNS_ENDPOINT: z.string().url().optional(),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
});

export const apiKeyEncryptionEnv = z.object({
  /** AES-256-GCM key (64 hex chars) for stored API keys; outbound webhooks are signed with the plaintext key. */
  API_KEY_ENCRYPTION_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)"),
});

export const trackingEnv = z.object({
  /** HMAC key for tracking links, so /t/c never becomes an open redirect. */
  TRACKING_SECRET: z.string().min(16, "must be at least 16 characters"),
  PUBLIC_BASE_URL: z.string().url().default("http://localhost:8080"),
});

export const inboundEnv = z.object({
  INBOUND_DOMAIN: z.string().min(3).default("inbound.localhost"),
});

export const adminEnv = z.object({
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters"),
});

/**
 * The shared credential of the cluster-only routes (public-api's POST /send-email and /trigger-job,
 * campaign-dispatcher's POST /trigger-campaign), sent as `x-internal-token`. Optional outside production so a
 * service still starts in a test harness that never calls those routes; unset, every call to them is refused
 * (401), never let through. Production requires it (loadEnv's production check).
 */
export const internalTokenEnv = z.object({
  INTERNAL_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * Optional: comma-separated senders (`ops@acme.example`) or domains (`@acme.example`) an internal
   * POST /send-email WITHOUT x-project-id may send from. Unset (the default, as the spec reads), such a send may
   * use any identity verified in the SES account, another tenant's included (SECURITY.md).
   */
  INTERNAL_SEND_SENDER_ALLOWLIST: z
    .string()
    .default("")
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean),
    ),
});

export const envBool = bool;

/**
 * An SNS receiver (provider notifications, inbound mail). Every receiver refuses topics outside its allowlist:
 * anyone can create a topic in their own AWS account, which AWS signs just as validly, and subscribe our endpoint.
 */
export const snsReceiverEnv = z.object({
  /**
   * Hosts allowed to serve SNS signing certificates, as a regex on the host name. Default: the strict AWS rule
   * (sns.<region>.amazonaws.com over https). Widen ONLY for local stacks and tests (the simulator's host).
   */
  SNS_CERT_HOST_PATTERN: z.string().optional(),
  /** Local only: accept http:// certificate URLs (the simulator serves its test cert over http). */
  SNS_ALLOW_HTTP_CERT_URLS: bool,
  /** Comma-separated topic ARNs accepted. Required unless SNS_ALLOW_ANY_TOPIC=true (tests, throw-away stacks). */
  SNS_TOPIC_ARNS: z.string().default(""),
  SNS_ALLOW_ANY_TOPIC: bool,
});
export type SnsReceiverEnv = z.output<typeof snsReceiverEnv>;

/** For `.refine`: a receiver's env names its topics or explicitly allows any. */
export const snsTopicsSet = (env: SnsReceiverEnv): boolean =>
  env.SNS_ALLOW_ANY_TOPIC || env.SNS_TOPIC_ARNS.split(",").some((t) => t.trim() !== "");
export const SNS_TOPICS_REQUIRED = {
  path: ["SNS_TOPIC_ARNS"],
  message: "the notification topic ARN(s) to accept, comma-separated (or SNS_ALLOW_ANY_TOPIC=true)",
};

/** Contact imports (issue 25): public-api stores uploads in this bucket, the scheduler reads them from it. */
export const importsEnv = z.object({
  IMPORTS_BUCKET: z.string().min(3).default("imports"),
});
