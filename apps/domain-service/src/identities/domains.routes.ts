import { Router } from "express";
import { AppError, ErrorCode } from "@emailsvc/contracts";
import { getAuth, methodNotAllowed } from "@emailsvc/http";
import { canSend } from "./domain/dns-records";
import { normalizeEmail, parseSendingDomain, senderOnDomain } from "./domain/domain-name";
import { optionalString } from "./domain/optional-string";
import { deleteDomain } from "./delete-domain";
import type { DomainDeps } from "./domain-deps";
import { getDnsRecords } from "./get-dns-records";
import { getDomain } from "./get-domain";
import { getDomainStatus } from "./get-domain-status";
import { registerDomain } from "./register-domain";
import { setDomainSender } from "./set-domain-sender";
import { verifyDomain } from "./verify-domain";

export type DomainRoutesDeps = DomainDeps;

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);

/** /domains* of spec 4.10 (Bearer key; every query scoped to the key's project). */
export function domainsRouter(deps: DomainRoutesDeps): Router {
  const { db } = deps;
  const r = Router();

  r.post("/domains/register", async (req, res) => {
    const { projectId } = getAuth(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const domainIn = str(body.domain);
    const senderName = str(body.sender_name);
    const senderGiven = str(body.sender_email);
    if (!domainIn || !senderName || !senderGiven)
      throw new AppError(ErrorCode.VALIDATION, "domain, sender_name and sender_email are required");
    const name = parseSendingDomain(domainIn);
    if (!name) throw new AppError(ErrorCode.VALIDATION, "Invalid domain format");
    const senderEmail = senderOnDomain(senderGiven, name.ascii);
    if (!senderEmail)
      throw new AppError(ErrorCode.VALIDATION, `sender_email must be an address @${name.unicode}`);
    const externalKey = optionalString(body.external_key, "external_key");
    const records = await registerDomain(deps, projectId, { name, senderName, senderEmail, externalKey });
    res.status(201).json({
      success: true,
      domain: name.unicode,
      dns_records: records.map(({ type, name: n, value, purpose }) => ({ type, name: n, value, purpose })),
      message: `Domain registered. Add these DNS records at your DNS provider, then call POST /domains/${name.unicode}/verify.`,
    });
  });

  // before `/domains/:domain`, whose DELETE would take "register" for a domain name (a 404)
  r.all("/domains/register", methodNotAllowed("POST"));

  r.get("/domains", async (req, res) => {
    const { projectId } = getAuth(res);
    const q = str(req.query.domain);
    if (!q) throw new AppError(ErrorCode.VALIDATION, "domain parameter is required");
    const { domain: d, sender } = await getDomain(db, projectId, q);
    res.json({
      success: true,
      domain: {
        domain: d.domain_unicode,
        status: d.status,
        can_send: canSend(d),
        created_at: d.created_at.toISOString(),
        sender: sender
          ? {
              sender_name: sender.sender_name,
              sender_email: sender.sender_email,
              reply_email: sender.reply_email,
            }
          : null,
      },
    });
  });

  r.get("/domains/:domain/dns-records", async (req, res) => {
    const { projectId } = getAuth(res);
    const { domain: d, records } = await getDnsRecords(db, projectId, req.params.domain);
    res.json({ success: true, domain: d.domain_unicode, dns_records: records });
  });

  r.post("/domains/:domain/verify", async (req, res) => {
    const { projectId } = getAuth(res);
    const v = await verifyDomain(deps, projectId, req.params.domain);
    res.json({
      success: true,
      domain: v.domain.domain_unicode,
      verification: {
        domain_verified: v.domainVerified,
        dkim_verified: v.dkimVerified,
        mail_from_verified: v.mailFromVerified,
      },
      can_send: v.canSend,
      message: v.canSend
        ? v.mailFromVerified
          ? "Domain verified: you can send from it."
          : "Domain verified: you can send from it. The MAIL FROM (bounce) record is not verified yet; it is recommended for deliverability."
        : "Domain not verified yet: check the DNS records (changes can take up to 72 hours to propagate).",
    });
  });

  r.get("/domains/:domain/status", async (req, res) => {
    const { projectId } = getAuth(res);
    const { domain: d, records, sender } = await getDomainStatus(db, projectId, req.params.domain);
    res.json({
      success: true,
      domain: d.domain_unicode,
      status: d.status,
      can_send: canSend(d),
      dns_records_summary: {
        total: records.length,
        verified: records.filter((x) => x.verified === true).length,
        pending: records.filter((x) => x.verified === null).length,
        failed: records.filter((x) => x.verified === false).length,
      },
      sender: sender ? { sender_name: sender.sender_name, sender_email: sender.sender_email } : null,
      last_verified_at: d.last_verified_at?.toISOString() ?? null,
    });
  });

  r.delete("/domains/:domain", async (req, res) => {
    const { projectId } = getAuth(res);
    const d = await deleteDomain(deps, projectId, req.params.domain);
    res.json({
      success: true,
      domain: d.domain_unicode,
      message: "Domain removed from the email provider; register it again to reuse it.",
    });
  });

  r.put("/domains/:domain/sender", async (req, res) => {
    const { projectId } = getAuth(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const senderName = str(body.sender_name);
    const senderGiven = str(body.sender_email);
    if (!senderName || !senderGiven)
      throw new AppError(ErrorCode.VALIDATION, "sender_name and sender_email are required");
    const replyGiven = optionalString(body.reply_email, "reply_email");
    const replyEmail = replyGiven === null ? null : normalizeEmail(replyGiven);
    if (replyGiven !== null && !replyEmail)
      throw new AppError(ErrorCode.VALIDATION, "reply_email must be an email address");
    const { domain: d, senderEmail } = await setDomainSender(db, projectId, req.params.domain, {
      senderName,
      senderEmail: senderGiven,
      replyEmail,
    });
    res.json({
      success: true,
      domain: d.domain_unicode,
      sender: { sender_name: senderName, sender_email: senderEmail, reply_email: replyEmail },
    });
  });

  // Another method on a known path: 405 with Allow, not the 404 that `/domains/:domain` overlapping the fixed
  // paths used to give. Registered last, so every route above is tried first.
  r.all("/domains", methodNotAllowed("GET"));
  r.all("/domains/:domain", methodNotAllowed("DELETE"));
  r.all("/domains/:domain/dns-records", methodNotAllowed("GET"));
  r.all("/domains/:domain/verify", methodNotAllowed("POST"));
  r.all("/domains/:domain/status", methodNotAllowed("GET"));
  r.all("/domains/:domain/sender", methodNotAllowed("PUT"));

  return r;
}
