import { z } from "zod";

// Bodies of the admin API's template routes.

export const templateSchema = z.object({
  name: z.string().trim().min(1).max(200),
  subject: z.string().max(998),
  html: z.string().min(1).max(1_000_000),
  text: z.string().max(1_000_000).nullable().optional(),
});
export const updateTemplateSchema = templateSchema.partial();

/** The editor's "Send a test": to one address, with the preview's sample variables. */
export const sendTestTemplateSchema = z.object({
  to: z.email({ error: "to must be an email address" }).max(320),
  /** a verified sender of the project; omitted: its oldest verified sender address */
  from: z.email({ error: "from must be an email address" }).max(320).optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
  /** test (default): as the test key sends (hidden from the live view, not counted); live: as the live key */
  mode: z.enum(["test", "live"], { error: "mode must be test or live" }).default("test"),
});
