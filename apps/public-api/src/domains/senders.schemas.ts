import { z } from "zod";

/** POST /admin/projects/:id/senders: a sender address marked verified locally. */
export const addSenderSchema = z.object({
  email: z.string().trim().toLowerCase().email(),
  // a display name goes into From and Reply-To headers: one line
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine((n) => !/[\r\n\u2028\u2029]/.test(n), "must be a single line"),
});
