import { z } from "zod";

// Bodies of the admin API's template routes.

export const templateSchema = z.object({
  name: z.string().trim().min(1).max(200),
  subject: z.string().max(998),
  html: z.string().min(1).max(1_000_000),
  text: z.string().max(1_000_000).nullable().optional(),
});
export const updateTemplateSchema = templateSchema.partial();
