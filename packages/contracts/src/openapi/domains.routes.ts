import { z } from "zod";
import { badRequest, internalError, notFound, type RouteDoc, unauthorized } from "./builder";

// Spec 4.10. domain-service checks these bodies field by field with the spec's own messages; the shapes here
// are the same fields, for the reference.

const purpose = z.enum(["ses_verification", "dkim", "spf", "dmarc", "return_path"]);
const dnsRecord = z.object({
  type: z.enum(["TXT", "CNAME"]),
  name: z.string().describe("Relative to the domain (`@` is the domain itself)"),
  value: z.string(),
  purpose,
});
const sender = z.object({
  sender_name: z.string(),
  sender_email: z.string(),
  reply_email: z.string().nullable(),
});
const profile = z.object({
  id: z.uuid(),
  from_name: z.string(),
  from_email: z.string(),
  email_verified: z.boolean(),
  domain_authenticated: z.boolean(),
});
const ok = <T extends z.ZodRawShape>(shape: T) => z.object({ success: z.literal(true), ...shape });
const domainParam = { domain: { description: "The registered sending domain" } };
const emailQuery = z.object({ email: z.string().describe("The sender address") });

export const domainRoutes: RouteDoc[] = [
  {
    service: "domain-service",
    method: "post",
    path: "/domains/register",
    tag: "Domains",
    summary: "Register a sending domain and get its seven DNS records",
    body: z.object({
      domain: z.string(),
      sender_name: z.string(),
      sender_email: z.string().describe("Must be an address on the domain"),
      external_key: z.string().optional(),
    }),
    responses: {
      201: {
        description: "Registered",
        schema: ok({ domain: z.string(), dns_records: z.array(dnsRecord), message: z.string() }),
      },
      400: badRequest("Missing fields or invalid domain format"),
      401: unauthorized,
      409: badRequest("Domain already registered"),
      500: internalError,
    },
  },
  {
    service: "domain-service",
    method: "get",
    path: "/domains",
    tag: "Domains",
    summary: "One domain of the project",
    query: z.object({ domain: z.string().describe("The domain to read") }),
    responses: {
      200: {
        description: "The domain",
        schema: ok({
          domain: z.object({
            domain: z.string(),
            status: z.string(),
            can_send: z.boolean(),
            created_at: z.string(),
            sender: sender.nullable(),
          }),
        }),
      },
      400: badRequest("`domain` parameter missing"),
      401: unauthorized,
      404: notFound(),
    },
  },
  {
    service: "domain-service",
    method: "get",
    path: "/domains/{domain}/dns-records",
    tag: "Domains",
    summary: "Stored DNS records with their verification state (no provider call)",
    pathParams: domainParam,
    responses: {
      200: {
        description: "Records",
        schema: ok({
          domain: z.string(),
          dns_records: z.array(dnsRecord.extend({ verified: z.boolean().nullable() })),
        }),
      },
      401: unauthorized,
      404: notFound(),
    },
  },
  {
    service: "domain-service",
    method: "post",
    path: "/domains/{domain}/verify",
    tag: "Domains",
    summary: "Ask the provider and update the stored verification state",
    pathParams: domainParam,
    responses: {
      200: {
        description: "Verification state",
        schema: ok({
          domain: z.string(),
          verification: z.object({
            domain_verified: z.boolean(),
            dkim_verified: z.boolean(),
            mail_from_verified: z.boolean(),
          }),
          can_send: z.boolean(),
          message: z.string(),
        }),
      },
      401: unauthorized,
      404: notFound(),
      502: badRequest("The provider failed"),
    },
  },
  {
    service: "domain-service",
    method: "get",
    path: "/domains/{domain}/status",
    tag: "Domains",
    summary: "Stored status (no provider call)",
    pathParams: domainParam,
    responses: {
      200: {
        description: "Status",
        schema: ok({
          domain: z.string(),
          status: z.string(),
          can_send: z.boolean(),
          dns_records_summary: z.object({
            total: z.number().int(),
            verified: z.number().int(),
            pending: z.number().int(),
            failed: z.number().int(),
          }),
          sender: z.object({ sender_name: z.string(), sender_email: z.string() }).nullable(),
          last_verified_at: z.string().nullable(),
        }),
      },
      401: unauthorized,
      404: notFound(),
    },
  },
  {
    service: "domain-service",
    method: "delete",
    path: "/domains/{domain}",
    tag: "Domains",
    summary: "Remove the domain at the provider; soft-delete it here",
    pathParams: domainParam,
    responses: {
      200: { description: "Deleted", schema: ok({ domain: z.string(), message: z.string() }) },
      401: unauthorized,
      404: notFound(),
    },
  },
  {
    service: "domain-service",
    method: "put",
    path: "/domains/{domain}/sender",
    tag: "Domains",
    summary: "Set the domain's sender profile",
    pathParams: domainParam,
    body: z.object({
      sender_name: z.string(),
      sender_email: z.string().describe("Must end in @{domain}"),
      reply_email: z.string().optional(),
    }),
    responses: {
      200: { description: "Updated", schema: ok({ domain: z.string(), sender }) },
      400: badRequest("`sender_name` or `sender_email` missing, or the address is not on the domain"),
      401: unauthorized,
      404: notFound(),
    },
  },
  {
    service: "domain-service",
    method: "post",
    path: "/domains/verify-email",
    tag: "Sender addresses",
    summary: "Verify one sender address by a link the provider mails",
    body: z.object({
      sender_email: z.string(),
      sender_name: z.string(),
      external_key: z.string().optional(),
    }),
    responses: {
      201: {
        description: "Pending; the verification message was sent",
        schema: ok({
          identity_id: z.uuid(),
          sender_email: z.string(),
          verification_status: z.literal("pending"),
          sender_profile_id: z.uuid(),
          sender: profile.omit({ id: true }),
          message: z.string(),
        }),
      },
      400: badRequest("`sender_email and sender_name are required`"),
      401: unauthorized,
      409: badRequest("Already registered"),
    },
  },
  {
    service: "domain-service",
    method: "get",
    path: "/domains/verify-email/status",
    tag: "Sender addresses",
    summary: "Verification state, checked live at the provider",
    query: emailQuery,
    responses: {
      200: {
        description: "State",
        schema: ok({
          identity_id: z.uuid(),
          sender_email: z.string(),
          verification_status: z.enum(["pending", "verified", "failed"]),
          sender_profile: profile,
          can_send: z.boolean(),
        }),
      },
      400: badRequest("`email query parameter is required`"),
      401: unauthorized,
      404: notFound(),
    },
  },
  {
    service: "domain-service",
    method: "post",
    path: "/domains/verify-email/resend",
    tag: "Sender addresses",
    summary: "Send the verification message again",
    body: z.object({ sender_email: z.string() }),
    responses: {
      200: { description: "Sent again", schema: ok({ message: z.string(), sender_email: z.string() }) },
      400: badRequest(),
      401: unauthorized,
      404: notFound(),
    },
  },
  {
    service: "domain-service",
    method: "delete",
    path: "/domains/verify-email",
    tag: "Sender addresses",
    summary: "Remove the address's identity and sender profile",
    query: emailQuery,
    responses: {
      200: { description: "Removed", schema: ok({ sender_email: z.string(), message: z.string() }) },
      400: badRequest("`email query parameter is required`"),
      401: unauthorized,
      404: notFound(),
    },
  },
];
