import { z } from "zod";

// Bodies of the internal admin API (the management surface the spec's dashboard provides).

const url = z.string().url().max(2048);
/** IANA zone name, validated by Intl so typos are refused at write time. */
export const ianaZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, "must be an IANA time zone name");

export const projectSettingsSchema = z.object({
  webhook_url: url.nullable().optional(),
  webhook_url_dev: url.nullable().optional(),
  inbound_webhook_url: url.nullable().optional(),
  inbound_webhook_url_dev: url.nullable().optional(),
  default_timezone: ianaZone.nullable().optional(),
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

export const templateSchema = z.object({
  name: z.string().trim().min(1).max(200),
  subject: z.string().max(998),
  html: z.string().min(1).max(1_000_000),
  text: z.string().max(1_000_000).nullable().optional(),
});
export const updateTemplateSchema = templateSchema.partial();

export const addSenderSchema = z.object({
  email: z.string().trim().toLowerCase().email(),
  name: z.string().trim().min(1).max(200),
});
