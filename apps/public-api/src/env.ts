import path from "node:path";
import { z } from "zod";
import {
  adminEnv,
  apiKeyEncryptionEnv,
  envBool,
  importsEnv,
  inboundEnv,
  internalTokenEnv,
  loadEnv,
  providerEnv,
  redisEnv,
  trackingEnv,
} from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

/** What only public-api needs: attachments, the send RPC, the outbox relay, idempotency. */
const sendEnv = z.object({
  /** S3 bucket holding attachments of accepted sends (the send-worker reads them from there). */
  ATTACHMENTS_BUCKET: z.string().min(3).default("attachments"),
  /** The bucket SES's S3 receipt action writes received mail to (GET /v1/inbound/:id/raw reads it). */
  INBOUND_BUCKET: z.string().min(3).default("inbound-mail"),
  /** Whole download of one `url` attachment, redirects included (spec leaves the value open). */
  ATTACHMENT_DOWNLOAD_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Lets `url` attachments reach loopback/private/link-local addresses. Only for local stacks and tests that
   * serve attachments from this machine; never in production (it turns the API into an SSRF proxy).
   */
  ATTACHMENT_URL_ALLOW_PRIVATE: envBool,
  /** How long the internal POST /send-email waits for the send-worker's answer before answering 504. */
  SEND_RPC_TIMEOUT_MS: z.coerce.number().int().positive().max(29_000).default(15_000),
  /** Outbox relay poll period when nobody kicks it (each commit kicks it at once). */
  OUTBOX_RELAY_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  OUTBOX_RELAY_BATCH_SIZE: z.coerce.number().int().positive().default(500),
  /** Idempotency cache connect timeout: Redis down must not slow sends, they go through without it. */
  REDIS_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(500),
});

/**
 * Per-API-key request limits shared by every replica through Redis (spec 8: 10,000 a minute on the events
 * endpoints). The leads endpoints get 3,000 a minute (50 a second): one call carries up to 1,000 leads, and lead
 * writes are heavier than events. 0 turns a limit off. The window is configurable so a test can shorten it.
 */
const rateLimitEnv = z.object({
  EVENTS_RATE_LIMIT: z.coerce.number().int().min(0).default(10_000),
  LEADS_RATE_LIMIT: z.coerce.number().int().min(0).default(3_000),
  /**
   * Requests a minute per API key on /v1/send-email, /v1/send-template-email and /v1/send-batch (issue 49): 10 a
   * second, far above one application's transactional mail, far below a loop draining the account. A project's
   * `send_rate_limit` overrides it.
   */
  SEND_RATE_LIMIT: z.coerce.number().int().min(0).default(600),
  /**
   * Emails a UTC day per project, test sends included (issue 49): half of spec 8's provider quota (106,000 a day), so
   * one project, or one leaked key, cannot use the whole account's day. A project's `daily_send_cap` overrides it;
   * 0 turns it off.
   */
  SEND_DAILY_CAP: z.coerce.number().int().min(0).default(53_000),
  /** The provider's rate for the whole account, as the send-workers enforce it (their SEND_RATE_PER_SECOND). */
  SEND_RATE_PER_SECOND: z.coerce.number().min(0).default(16),
  /**
   * The share of that rate one project's transactional sends may take over SEND_FAIR_SHARE_WINDOW_MS; past it, its
   * sends go in the bulk lane, which takes only the slots other projects' transactional mail leaves free: one
   * project's backlog never holds another's transactional mail for longer than the window. 0 turns it off.
   */
  SEND_FAIR_SHARE: z.coerce.number().min(0).max(1).default(0.5),
  SEND_FAIR_SHARE_WINDOW_MS: z.coerce.number().int().positive().default(2_000),
  /**
   * Requests with a missing or unknown API key per client address and RATE_LIMIT_WINDOW_MS; past it the address is
   * refused (429) before any key is looked up, until the window ends. 0 turns it off.
   */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).default(60),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /** POST /v1/events served ahead of Express (events.fast-path.ts); false leaves it to the Express route. */
  EVENTS_FAST_PATH: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1"),
});

/** The dashboard's accounts (issue 45): sessions, the origins its changes come from, the sign-in throttle. */
const dashboardEnv = z.object({
  /** A session unused this long ends (sign in again). */
  DASHBOARD_SESSION_IDLE_MINUTES: z.coerce.number().int().positive().default(120),
  /** A session ends this long after sign-in, used or not. */
  DASHBOARD_SESSION_MAX_DAYS: z.coerce.number().positive().default(7),
  /** Origins (scheme://host:port) a signed-in browser's changes may come from besides the admin listener's own. */
  DASHBOARD_ORIGINS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  /** Secure session cookies: `auto` (when the request came over https, X-Forwarded-Proto included), true, false. */
  DASHBOARD_SECURE_COOKIES: z
    .enum(["auto", "true", "false"])
    .default("auto")
    .transform((v) => (v === "auto" ? ("auto" as const) : v === "true")),
  /** Failed sign-ins per account and per client address in 15 minutes, then 429 until the window ends. */
  SIGN_IN_FAILURES_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  SIGN_IN_FAILURES_PER_ADDRESS: z.coerce.number().int().positive().default(30),
  /**
   * The built dashboard served under /dashboard on the admin listener; by default apps/dashboard/dist of this checkout
   * (the same two levels up from src/ and from dist/).
   */
  DASHBOARD_DIST: z.string().min(1).default(path.resolve(__dirname, "../../dashboard/dist")),
  /**
   * Where people open the dashboard (e.g. https://dash.example.com/dashboard): the base of invitation links. Unset:
   * the admin listener's own /dashboard, as the inviting browser reached it.
   */
  DASHBOARD_PUBLIC_URL: z
    .url({ error: "DASHBOARD_PUBLIC_URL must be a URL" })
    .optional()
    .transform((v) => v?.replace(/\/+$/, "")),
  /**
   * The sender invitations are emailed from (`Name <address>` or an address), a verified sender of the platform's
   * own project; unset: invitations are not emailed, and the inviter is given the link to pass on.
   */
  DASHBOARD_INVITE_FROM: z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (!v) return undefined;
      const m = /^(?:"?([^"<]*?)"?\s*<([^<>\s]+@[^<>\s]+)>|([^<>\s]+@[^<>\s]+))$/.exec(v);
      if (!m) {
        ctx.addIssue({
          code: "custom",
          message: "DASHBOARD_INVITE_FROM must be `Name <address>` or an address",
        });
        return z.NEVER;
      }
      return { name: m[1]?.trim() || null, email: (m[2] ?? m[3])!.toLowerCase() };
    }),
  /** The project invitations are sent from; unset: the one project that holds DASHBOARD_INVITE_FROM as verified. */
  DASHBOARD_INVITE_PROJECT_ID: z
    .uuid({ error: "DASHBOARD_INVITE_PROJECT_ID must be a project UUID" })
    .optional(),
  /** How long an invitation's link works. */
  DASHBOARD_INVITE_TTL_HOURS: z.coerce.number().positive().default(72),
});

/** Contact imports (issue 25): the upload cap. */
const importUploadEnv = z.object({
  IMPORT_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(100 * 1024 * 1024),
});

/** The dashboard's Domains page: the admin API reaches domain-service's internal port (issue 45). */
const domainServiceEnv = z.object({
  /**
   * domain-service's internal listener (e.g. http://domain-service:3102), called with INTERNAL_TOKEN for the project
   * an admin route names; unset, the admin API's domain routes answer 503 (the domain list still reads).
   */
  DOMAIN_SERVICE_URL: z
    .url({ error: "DOMAIN_SERVICE_URL must be a URL" })
    .optional()
    .transform((v) => v?.replace(/\/+$/, "")),
});

export const envSchema = serviceEnv(3001, 3101)
  .extend(redisEnv.shape)
  .extend(apiKeyEncryptionEnv.shape)
  .extend(adminEnv.shape)
  .extend(internalTokenEnv.shape)
  .extend(trackingEnv.shape)
  .extend(inboundEnv.shape)
  .extend(providerEnv.shape)
  .extend(sendEnv.shape)
  .extend(rateLimitEnv.shape)
  .extend(importsEnv.shape)
  .extend(importUploadEnv.shape)
  .extend(domainServiceEnv.shape)
  .extend(dashboardEnv.shape);
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("public-api", envSchema, source);
}
