import { type Response, Router } from "express";
import { listProjectDomains, listProjectEmailIdentities, type Db } from "@emailsvc/db";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { projectOf } from "../projects/project-of";
import { registerDomainBody, verifyAddressBody } from "./admin-domains.schemas";
import type { DomainService, DomainServiceAnswer } from "./domain-service-client";

export interface AdminDomainsDeps {
  db: Db;
  /** domain-service's internal port; null (DOMAIN_SERVICE_URL unset): the routes that need it answer 503. */
  domainService: DomainService | null;
}

/** domain-service's answer as the page's: the same status and body (its errors are already in the API's words). */
const relay = (res: Response, a: DomainServiceAnswer) => res.status(a.status).json(a.body);

/**
 * The dashboard's Domains and senders page (issue 45): a project's domains with their 7 DNS records, verification
 * and status, and its single-address verifications. The lists are rows read here (packages/db's identities repo);
 * every change and every live check goes to domain-service, which owns the provider's identity API and the DNS
 * checks, acting for the URL's project. The role (viewers only read) and the audit log are the admin API's own.
 */
export function adminDomainsRouter(deps: AdminDomainsDeps): Router {
  const { db } = deps;
  const r = Router();
  const domainService = () => {
    if (!deps.domainService)
      throw new AppError(
        ErrorCode.UNAVAILABLE,
        "Domains cannot be changed or checked here: DOMAIN_SERVICE_URL is not set on public-api",
      );
    return deps.domainService;
  };
  const domainPath = (domain: string) => `/domains/${encodeURIComponent(domain)}`;

  r.get("/projects/:projectId/domains", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const rows = await listProjectDomains(db, projectId);
    res.json({
      success: true,
      domains: rows.map((d) => ({
        domain: d.domain_unicode,
        status: d.status,
        // spec 4.10's can_send: the identity and DKIM verified (MAIL FROM is recommended, not required)
        can_send: d.domain_verified && d.dkim_verified,
        verification: {
          domain_verified: d.domain_verified,
          dkim_verified: d.dkim_verified,
          mail_from_verified: d.mail_from_verified,
        },
        dns_records_summary: { total: d.records_total, verified: d.records_verified },
        sender: d.sender_email ? { sender_name: d.sender_name, sender_email: d.sender_email } : null,
        last_verified_at: d.last_verified_at?.toISOString() ?? null,
        created_at: d.created_at.toISOString(),
      })),
    });
  });

  r.post("/projects/:projectId/domains", async (req, res) => {
    const body = parseInput(registerDomainBody, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    relay(res, await domainService().call(projectId, "POST", "/domains/register", { body }));
  });

  r.get("/projects/:projectId/domains/:domain/dns-records", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    relay(res, await domainService().call(projectId, "GET", `${domainPath(req.params.domain)}/dns-records`));
  });

  r.post("/projects/:projectId/domains/:domain/verify", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    relay(res, await domainService().call(projectId, "POST", `${domainPath(req.params.domain)}/verify`));
  });

  r.get("/projects/:projectId/domains/:domain/status", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    relay(res, await domainService().call(projectId, "GET", `${domainPath(req.params.domain)}/status`));
  });

  r.delete("/projects/:projectId/domains/:domain", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    relay(res, await domainService().call(projectId, "DELETE", domainPath(req.params.domain)));
  });

  r.get("/projects/:projectId/sender-addresses", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const rows = await listProjectEmailIdentities(db, projectId);
    res.json({
      success: true,
      addresses: rows.map((a) => ({
        sender_email: a.sender_email,
        sender_name: a.sender_name,
        verification_status: a.verification_status,
        created_at: a.created_at.toISOString(),
        updated_at: a.updated_at.toISOString(),
      })),
    });
  });

  r.post("/projects/:projectId/sender-addresses", async (req, res) => {
    const body = parseInput(verifyAddressBody, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    relay(res, await domainService().call(projectId, "POST", "/domains/verify-email", { body }));
  });

  // the provider's state, read live (a pending address turns verified once its link was followed)
  r.get("/projects/:projectId/sender-addresses/:email/status", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const query = { email: req.params.email };
    relay(res, await domainService().call(projectId, "GET", "/domains/verify-email/status", { query }));
  });

  r.post("/projects/:projectId/sender-addresses/:email/resend", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const body = { sender_email: req.params.email };
    relay(res, await domainService().call(projectId, "POST", "/domains/verify-email/resend", { body }));
  });

  r.delete("/projects/:projectId/sender-addresses/:email", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const query = { email: req.params.email };
    relay(res, await domainService().call(projectId, "DELETE", "/domains/verify-email", { query }));
  });

  return r;
}
