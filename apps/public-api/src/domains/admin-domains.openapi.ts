import { registerDomainBody, verifyAddressBody } from "./admin-domains.schemas";
import { type Json, type Ok, projectIdParam } from "../docs/openapi-parts";

const projectId = projectIdParam;
const domain = {
  name: "domain",
  in: "path",
  required: true,
  description: "the domain, Unicode or punycode",
  schema: { type: "string" },
};
const email = {
  name: "email",
  in: "path",
  required: true,
  description: "the address",
  schema: { type: "string" },
};
/** domain-service's answers the admin API passes on (spec 4.10). */
const unavailable = {
  503: { description: "domain-service is not configured (DOMAIN_SERVICE_URL) or unreachable" },
};

/** The Domains and senders page's routes (issue 45), for adminOpenApi. */
export function adminDomainPaths(json: Json, ok: Ok) {
  return {
    "/admin/projects/{projectId}/domains": {
      parameters: [projectId],
      get: {
        summary:
          "The project's sending domains, newest first: status, each check's state, records verified, sender",
        responses: { 200: ok("domains") },
      },
      post: {
        summary: "Register a sending domain with the provider: its 7 DNS records to publish (spec 4.10)",
        requestBody: json(registerDomainBody),
        responses: {
          201: ok("domain, dns_records"),
          409: ok("the domain is registered already, here or by another project"),
          ...unavailable,
        },
      },
    },
    "/admin/projects/{projectId}/domains/{domain}/dns-records": {
      parameters: [projectId, domain],
      get: {
        summary:
          "The domain's 7 DNS records, each with what the last verification found (verified: true/false/null)",
        responses: { 200: ok("domain, dns_records"), ...unavailable },
      },
    },
    "/admin/projects/{projectId}/domains/{domain}/verify": {
      parameters: [projectId, domain],
      post: {
        summary: "Check the domain now (the provider's verification and DKIM, MAIL FROM, DMARC in DNS)",
        responses: {
          200: ok("verification, can_send, message"),
          502: ok("the provider failed"),
          ...unavailable,
        },
      },
    },
    "/admin/projects/{projectId}/domains/{domain}": {
      parameters: [projectId, domain],
      delete: {
        summary: "Remove the domain from the provider; its senders can no longer send",
        responses: { 200: ok("domain, message"), ...unavailable },
      },
    },
    "/admin/projects/{projectId}/domains/{domain}/status": {
      parameters: [projectId, domain],
      get: {
        summary: "The domain's status, can_send and a summary of its records' states",
        responses: {
          200: ok("status, can_send, dns_records_summary, sender, last_verified_at"),
          ...unavailable,
        },
      },
    },
    "/admin/projects/{projectId}/sender-addresses": {
      parameters: [projectId],
      get: {
        summary: "The project's single-address verifications, newest first, with their last known state",
        responses: { 200: ok("addresses") },
      },
      post: {
        summary: "Verify one sender address: the provider emails it a verification link",
        requestBody: json(verifyAddressBody),
        responses: {
          201: ok("verification_status pending"),
          409: ok("verified by another project"),
          ...unavailable,
        },
      },
    },
    "/admin/projects/{projectId}/sender-addresses/{email}/status": {
      parameters: [projectId, email],
      get: {
        summary: "The address's verification state, read from the provider now (pending, verified, failed)",
        responses: { 200: ok("verification_status, can_send"), ...unavailable },
      },
    },
    "/admin/projects/{projectId}/sender-addresses/{email}/resend": {
      parameters: [projectId, email],
      post: {
        summary: "Send the verification email again",
        responses: { 200: ok("message"), ...unavailable },
      },
    },
    "/admin/projects/{projectId}/sender-addresses/{email}": {
      parameters: [projectId, email],
      delete: {
        summary: "Remove the address's verification and its sender profile: it can no longer send",
        responses: { 200: ok("message"), ...unavailable },
      },
    },
  };
}
