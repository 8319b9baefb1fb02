import { z } from "zod";

// The admin API's domain bodies: their shape is checked here, the domain rules (a sending domain's form, an
// address on it, the provider's limits) by domain-service, whose 400 comes back to the page as it is.

const singleLine = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} is required`)
    .max(200)
    .refine((n) => !/[\r\n\u2028\u2029]/.test(n), `${what} must be a single line`);

/** POST /admin/projects/:id/domains: register a sending domain and the sender its mail goes out as. */
export const registerDomainBody = z.object({
  /** the domain (Unicode or punycode) */
  domain: z.string().trim().min(1, "domain is required").max(253),
  /** the From name of the domain's sender */
  sender_name: singleLine("sender_name"),
  /** the sender address, on the domain */
  sender_email: z.string().trim().min(3, "sender_email is required").max(320),
});

/** POST /admin/projects/:id/sender-addresses: verify one address (the provider mails it a link). */
export const verifyAddressBody = z.object({
  /** the address to verify */
  sender_email: z.string().trim().min(3, "sender_email is required").max(320),
  /** the From name it sends as */
  sender_name: singleLine("sender_name"),
});
