import type { CampaignCreateInput, CampaignUpdateInput } from "@emailsvc/contracts";
import type { CampaignContent, CampaignRow } from "@emailsvc/db";

/** A create body as the row's fields. */
export function contentOf(body: CampaignCreateInput): CampaignContent {
  return {
    name: body.name,
    subject: body.subject,
    html: body.html ?? null,
    text: body.text ?? null,
    templateId: body.template_id ?? null,
    fromEmail: body.sender_email,
    fromName: body.sender_name ?? null,
    replyTo: body.reply_to ?? null,
    emailType: body.email_type,
    audience: body.audience,
    startAt: body.start_at ? new Date(body.start_at) : null,
    batchSize: body.batch_size ?? null,
    batchIntervalHours: body.batch_interval_hours ?? null,
    sendOverHours: body.send_over_hours ?? null,
  };
}

/** A stored campaign's fields (to duplicate it, or to apply an update over them). */
export function contentOfRow(c: CampaignRow): CampaignContent {
  return {
    name: c.name,
    subject: c.subject,
    html: c.html,
    text: c.text,
    templateId: c.template_id,
    fromEmail: c.from_email,
    fromName: c.from_name,
    replyTo: c.reply_to,
    emailType: c.email_type,
    audience: c.audience,
    startAt: c.start_at,
    batchSize: c.batch_size,
    batchIntervalHours: c.batch_interval_hours,
    sendOverHours: c.send_over_hours,
  };
}

/** The stored fields with an update's given ones over them (undefined: unchanged, null: cleared). */
export function applyUpdate(c: CampaignContent, u: CampaignUpdateInput): CampaignContent {
  const pick = <T>(given: T | undefined, current: T): T => (given === undefined ? current : given);
  const next: CampaignContent = {
    name: pick(u.name, c.name),
    subject: pick(u.subject, c.subject),
    html: pick(u.html, c.html),
    text: pick(u.text, c.text),
    templateId: pick(u.template_id, c.templateId),
    fromEmail: pick(u.sender_email, c.fromEmail),
    fromName: pick(u.sender_name, c.fromName),
    replyTo: pick(u.reply_to, c.replyTo),
    emailType: pick(u.email_type, c.emailType),
    audience: pick(u.audience, c.audience),
    startAt: u.start_at === undefined ? c.startAt : u.start_at ? new Date(u.start_at) : null,
    batchSize: pick(u.batch_size, c.batchSize),
    batchIntervalHours: pick(u.batch_interval_hours, c.batchIntervalHours),
    sendOverHours: pick(u.send_over_hours, c.sendOverHours),
  };
  // html and a template exclude each other: giving one clears the other
  if (u.html) next.templateId = null;
  if (u.template_id) next.html = null;
  return next;
}

/** An update that changes who gets it (or under which consent rule) rewrites the ledger. */
export const changesAudience = (before: CampaignContent, after: CampaignContent): boolean =>
  JSON.stringify(before.audience) !== JSON.stringify(after.audience) || before.emailType !== after.emailType;
