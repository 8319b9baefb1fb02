import { z } from "zod";
import { isUuid } from "../ids";
import { LEAD_LIMITS } from "./leads";
import { isEmailAddress } from "./send-requests";

// Campaigns (spec 1.8, 3, 4.8, 8): created and managed through the admin API (what the spec's dashboard does),
// dispatched by campaign-dispatcher, triggered by its internal POST /trigger-campaign.

/** Spec 3's campaign states. */
export const CAMPAIGN_STATUSES = [
  "initializing", // transient: the recipient ledger is being written
  "pending", // ready for the dispatcher (waits for start_at when set)
  "processing", // sending in cycles
  "paused", // by the user, or by the reputation guard (status_cause says which)
  "rate_limited", // stopped automatically by a quota or the warm-up ramp until its window reopens
  "completed", // every recipient processed
  "failed", // ended with errors (status_reason says why)
  "cancelled", // by the user: pending recipients are never sent
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** Spec 4.8: the states POST /trigger-campaign starts or resumes (in this order in its 400 body). */
export const RESUMABLE_CAMPAIGN_STATUSES = ["pending", "paused", "rate_limited", "processing"] as const;
/** A recipient's states (spec 3 "Campaign recipient / email status", plus failed, skipped and cancelled). */
export const CAMPAIGN_RECIPIENT_STATUSES = [
  "pending",
  "queued",
  "sent",
  "delivered",
  "opened",
  "clicked",
  "bounced",
  "complained",
  "failed",
  "skipped",
  "cancelled",
] as const;
export type CampaignRecipientStatus = (typeof CAMPAIGN_RECIPIENT_STATUSES)[number];

/** Why a campaign is rate_limited (`status_cause`). */
export const RATE_LIMIT_CAUSES = ["provider_daily_quota", "monthly_quota", "warmup"] as const;
export type RateLimitCause = (typeof RATE_LIMIT_CAUSES)[number];

export const CAMPAIGN_LIMITS = {
  nameLength: 200,
  subjectLength: 998,
  /** Gmail clips a message whose HTML is larger: a pre-flight warning, not a refusal. */
  gmailClipBytes: 102 * 1024,
  /** The HTML a campaign may hold at all (the send endpoints' own cap). */
  htmlBytes: 5_000_000,
  /** Segments, tags or leads named in one audience list. */
  audienceItems: 1_000,
} as const;

const list = <T extends z.ZodType>(item: T, what: string) =>
  z
    .array(item, { error: `must be an array of ${what}` })
    .max(CAMPAIGN_LIMITS.audienceItems, { error: `at most ${CAMPAIGN_LIMITS.audienceItems} ${what}` })
    .optional();
const uuidList = (what: string) => list(z.uuid({ error: `must hold ${what} UUIDs` }), what);
const tagList = () => list(z.string().trim().min(1).max(LEAD_LIMITS.tagLength), "tags");
const emailList = () =>
  list(
    z
      .string()
      .trim()
      .refine(isEmailAddress, { error: (i) => `is not a valid email address: ${String(i.input)}` }),
    "email addresses",
  );

/** Leads left out of an audience: members of these segments, holders of these tags, these leads. */
export const campaignExclusionSchema = z.strictObject({
  segment_ids: uuidList("segment"),
  tags: tagList(),
  lead_ids: uuidList("lead"),
  emails: emailList(),
});

/**
 * Who a campaign goes to: the leads in any of `segment_ids`, holding any of `tags`, named in `lead_ids` /
 * `emails`, or every lead (`all_subscribed`), minus `exclude`. Marketing campaigns (any `email_type` but
 * transactional) only ever go to leads whose subscription is `subscribed`; none goes to a lead that unsubscribed
 * or whose address is suppressed.
 */
export const campaignAudienceSchema = z
  .strictObject({
    all_subscribed: z.boolean().optional(),
    segment_ids: uuidList("segment"),
    tags: tagList(),
    lead_ids: uuidList("lead"),
    emails: emailList(),
    exclude: campaignExclusionSchema.optional(),
  })
  .refine(
    (a) =>
      a.all_subscribed || a.segment_ids?.length || a.tags?.length || a.lead_ids?.length || a.emails?.length,
    { error: "must name segment_ids, tags, lead_ids, emails or all_subscribed: true" },
  );
export type CampaignAudience = z.output<typeof campaignAudienceSchema>;

const hours = (what: string) =>
  z
    .number({ error: `${what} must be a number of hours` })
    .positive({ error: `${what} must be more than 0` })
    .max(24 * 366, { error: `${what} must be at most a year` });

/** The fields a campaign is created with (and may change while it has not started). */
const campaignFields = {
  name: z.string({ error: "name is required" }).trim().min(1).max(CAMPAIGN_LIMITS.nameLength),
  subject: z.string({ error: "subject is required" }).min(1).max(CAMPAIGN_LIMITS.subjectLength),
  /** `{{variable}}` substitution from the lead (email, first_name, last_name, phone and its attributes). */
  html: z.string().min(1).max(CAMPAIGN_LIMITS.htmlBytes).optional(),
  text: z.string().max(CAMPAIGN_LIMITS.htmlBytes).nullable().optional(),
  /** A stored template instead of `html` (its `{variable}` syntax). */
  template_id: z.uuid({ error: "template_id must be a template UUID" }).optional(),
  /** A verified sender (profile or domain) of the project. */
  sender_email: z
    .string({ error: "sender_email is required" })
    .trim()
    .refine(isEmailAddress, { error: "sender_email must be an email address" }),
  sender_name: z.string().trim().max(200).nullable().optional(),
  /** The human Reply-To (spec 4.11); the sender's address when omitted. */
  reply_to: z
    .string()
    .trim()
    .refine(isEmailAddress, { error: "reply_to must be an email address" })
    .nullable()
    .optional(),
  email_type: z.string().trim().min(1).max(50).default("marketing"),
  audience: campaignAudienceSchema,
  /** Not before this time (ISO 8601 with a zone); at once when omitted. */
  start_at: z.iso
    .datetime({ offset: true, error: "start_at must be an ISO 8601 date-time" })
    .nullable()
    .optional(),
  /** Batch mode: this many recipients, then `batch_interval_hours` of waiting. */
  batch_size: z.number().int().min(1).max(1_000_000).nullable().optional(),
  batch_interval_hours: hours("batch_interval_hours").nullable().optional(),
  /** Spread the recipients evenly over this many hours from the start. */
  send_over_hours: hours("send_over_hours").nullable().optional(),
};

type PacingInput = {
  batch_size?: number | null | undefined;
  batch_interval_hours?: number | null | undefined;
  send_over_hours?: number | null | undefined;
};
function checkPacing(c: PacingInput, ctx: z.RefinementCtx): void {
  if ((c.batch_size == null) !== (c.batch_interval_hours == null))
    ctx.addIssue({ code: "custom", message: "batch mode needs both batch_size and batch_interval_hours" });
  if (c.batch_size != null && c.send_over_hours != null)
    ctx.addIssue({ code: "custom", message: "choose batch mode or send_over_hours, not both" });
}

/** POST /admin/projects/:projectId/campaigns (and the pre-flight check of a draft). */
export const campaignCreateSchema = z.strictObject(campaignFields).superRefine((c, ctx) => {
  if ((c.html === undefined) === (c.template_id === undefined))
    ctx.addIssue({ code: "custom", message: "give html or template_id (one of the two)" });
  checkPacing(c, ctx);
});
export type CampaignCreateInput = z.output<typeof campaignCreateSchema>;

/** PATCH /admin/campaigns/:id: any of the fields, only while the campaign has not started. */
export const campaignUpdateSchema = z
  .strictObject({
    ...campaignFields,
    name: campaignFields.name.optional(),
    subject: campaignFields.subject.optional(),
    sender_email: campaignFields.sender_email.optional(),
    email_type: z.string().trim().min(1).max(50).optional(),
    audience: campaignAudienceSchema.optional(),
    html: campaignFields.html.nullable(),
    template_id: campaignFields.template_id.nullable(),
  })
  .superRefine((c, ctx) => {
    if (c.html && c.template_id)
      ctx.addIssue({ code: "custom", message: "give html or template_id, not both" });
    checkPacing(c, ctx);
  });
export type CampaignUpdateInput = z.output<typeof campaignUpdateSchema>;

/** POST /admin/campaigns/:id/test-send: the campaign as a recipient would get it, to one address. */
export const campaignTestSendSchema = z.strictObject({
  email: z
    .string({ error: "email is required" })
    .trim()
    .refine(isEmailAddress, { error: "email must be an email address" }),
});

/** Spec 4.8's 400 texts for the body of POST /trigger-campaign. */
export const MSG_CAMPAIGN_ID_REQUIRED = "campaignId is required";
export const MSG_CAMPAIGN_ID_MALFORMED = "campaignId must be a UUID";

/** POST /trigger-campaign (spec 4.8): the body's `campaignId`, or the 400 text when it is missing or not a UUID. */
export function triggerCampaignId(body: unknown): { campaignId: string } | { error: string } {
  const v = body && typeof body === "object" ? (body as Record<string, unknown>).campaignId : undefined;
  if (v === undefined || v === null || v === "") return { error: MSG_CAMPAIGN_ID_REQUIRED };
  if (typeof v !== "string" || !isUuid(v)) return { error: MSG_CAMPAIGN_ID_MALFORMED };
  return { campaignId: v };
}

/** Spec 4.8's 200 body. */
export interface TriggerCampaignResponse {
  success: true;
  message: string;
  campaignId: string;
  previousStatus: CampaignStatus;
  batchMode: boolean;
  /** 0 without batch mode */
  currentBatch: number;
  /** 0 without batch mode */
  totalBatches: number;
}

/**
 * Spec 4.11: a dashboard send (a campaign, its test send) replies to the human sender, not to a reply token:
 * `Reply-To: "<sender name>" <reply_to, else the sender's address>` (RFC 5322 quoted; the bare address without a
 * name).
 */
export function humanReplyTo(name: string | null, address: string): string {
  const n = name?.replace(/[\r\n]+/g, " ").trim();
  return n ? `"${n.replace(/(["\\])/g, "\\$1")}" <${address}>` : address;
}
