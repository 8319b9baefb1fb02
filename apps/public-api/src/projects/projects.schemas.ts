import { z } from "zod";
import { canonicalIanaZone } from "../sends/domain/scheduling/timezone";

// Bodies of the internal admin API (the management surface the spec's dashboard provides).

/**
 * A webhook URL: http or https only (anything else could never be delivered). Where it may point (public
 * addresses only) is checked by the webhook-dispatcher on every attempt, against the addresses the name resolves
 * to then. An empty string clears it, like null.
 */
const url = z
  .union([
    z.literal("").transform(() => null),
    z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).max(2048),
  ])
  .nullable()
  .optional();
/** IANA zone name, validated by Intl so typos are refused at write time, stored in its canonical spelling. */
export const ianaZone = z.string().transform((tz, ctx) => {
  const canonical = canonicalIanaZone(tz);
  if (canonical) return canonical;
  ctx.addIssue({ code: "custom", message: "must be an IANA time zone name" });
  return z.NEVER;
});

export const projectSettingsSchema = z.object({
  webhook_url: url,
  webhook_url_dev: url,
  inbound_webhook_url: url,
  inbound_webhook_url_dev: url,
  default_timezone: ianaZone.nullable().optional(),
  /**
   * A send whose worker died after claiming it and before SES's answer, still unanswered after the send-worker's
   * reconcile window: `resend` it (the default; a second copy if SES did accept it and its Send notification came
   * later than the window) or `fail` it with reason outcome_unknown (at most once).
   */
  on_send_unknown: z.enum(["resend", "fail"]).optional(),
  /**
   * Leads created by an event for an unknown email: false (default) leaves their marketing subscription
   * `unknown`, not opted in; true subscribes them (only where an event means consent in your product).
   */
  auto_leads_subscribed: z.boolean().optional(),
  /**
   * The sender's postal address, printed in the compliance footer of campaigns and marketing batches (CAN-SPAM and
   * the large mailbox providers ask for one; a campaign does not start without it). An empty string clears it.
   */
  postal_address: z
    .string()
    .trim()
    .max(500)
    .transform((v) => (v === "" ? null : v))
    .nullable()
    .optional(),
  /**
   * Shop webhooks must be signed: a delivery from a shop without a secret, or for a domain not connected yet, is
   * refused with 401. Off (default, as spec 7.9 reads): such a delivery is accepted, marked unsigned, and an unknown
   * domain is connected to the project without a secret.
   */
  require_signed_shop_webhooks: z.boolean().optional(),
  /** Requests a minute per API key on /v1/send-* (null: the deployment's SEND_RATE_LIMIT; issue 49). */
  send_rate_limit: z.number().int().min(0).max(1_000_000).nullable().optional(),
  /** Emails a UTC day, test sends included (null: the deployment's SEND_DAILY_CAP; 0: no cap; issue 49). */
  daily_send_cap: z.number().int().min(0).max(100_000_000).nullable().optional(),
  /** Test keys see only test threads, replies (issue 49; off by default, as spec 5 reads). */
  test_keys_test_data_only: z.boolean().optional(),
});

/**
 * GET /admin/projects: keyset pages, oldest first. `limit` defaults to 500 (the one page the list had before), so
 * a caller that knows no cursor gets what it got; `next_cursor` (null on the last page) asks for the next.
 */
export const listProjectsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(500),
  cursor: z.string().max(200).optional(),
});

export const createProjectSchema = projectSettingsSchema.extend({
  name: z.string().trim().min(1).max(200),
  /** Issue the live key with the legacy `sk_proj_` prefix (still valid indefinitely, spec 9). */
  legacy_live_key: z.boolean().optional(),
});

export const updateProjectSchema = projectSettingsSchema.extend({
  name: z.string().trim().min(1).max(200).optional(),
});

export const keyModeSchema = z.enum(["live", "test"]);
