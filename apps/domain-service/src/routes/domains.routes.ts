import { randomUUID } from "node:crypto";
import { Router } from "express";
import { withTransaction, type Db } from "@emailsvc/db";
import { AppError, ErrorCode, getAuth, methodNotAllowed } from "@emailsvc/http";
import type { Logger } from "@emailsvc/observability";
import { buildDnsRecords, domainStatus } from "../domain/dns-records";
import { MAIL_FROM_LABEL, normalizeEmail, parseSendingDomain } from "../domain/domain-name";
import { optionalString } from "../domain/optional-string";
import { canSend, domainSender, findDomain } from "../use-cases/domain-repo";
import { dmarcPublished, type TxtLookup } from "../use-cases/dns-check";
import { isProviderBadRequest, type IdentityProvider } from "../use-cases/provider-port";

export interface DomainRoutesDeps {
  db: Db;
  provider: IdentityProvider;
  logger: Logger;
  resolveTxt: TxtLookup;
}

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);

/** The normalized sender address when it is an address on this domain (ASCII form), else null. */
function senderOnDomain(email: string, ascii: string): string | null {
  const normalized = normalizeEmail(email);
  return normalized?.endsWith(`@${ascii}`) ? normalized : null;
}

/**
 * Profiles of a domain whose sender changes to another address: one also verified on its own (`email_verified`,
 * spec 3's single-address flow) stays an active sender, detached from the domain; the others are deactivated.
 * (Deleting the domain deactivates its profiles, as spec 3's domain table says.)
 */
const RELEASE_DOMAIN_PROFILES = `UPDATE sender_profiles SET active = email_verified,
       domain_id = CASE WHEN email_verified THEN NULL ELSE domain_id END,
       domain_authenticated = false, updated_at = now()
 WHERE project_id = $1 AND domain_id = $2 AND sender_email <> $3`;

async function storedRecords(db: Db, projectId: string, domainId: string) {
  const r = await db.pool.query<{
    type: string;
    name: string;
    value: string;
    purpose: string;
    verified: boolean | null;
  }>(
    "SELECT type, name, value, purpose, verified FROM dns_records WHERE project_id = $1 AND domain_id = $2 ORDER BY position",
    [projectId, domainId],
  );
  return r.rows;
}

/** /domains* of spec 4.10 (Bearer key; every query scoped to the key's project). */
export function domainsRouter(deps: DomainRoutesDeps): Router {
  const { db, provider } = deps;
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
    // The provider's identity is one per account: a domain another project registered is theirs (reusing it
    // would hand this project their DKIM tokens and verification, and deleting it here would break it there).
    const owners = await db.pool.query<{ project_id: string }>(
      "SELECT project_id FROM domain_identities WHERE active_domain = $1",
      [name.ascii],
    );
    if (owners.rows.some((o) => o.project_id === projectId))
      throw new AppError(ErrorCode.CONFLICT, `Domain ${name.unicode} is already registered in this project`);
    if (owners.rowCount)
      throw new AppError(
        ErrorCode.CONFLICT,
        `Domain ${name.unicode} is already registered by another project`,
      );

    let identity: { verificationToken: string; dkimTokens: string[]; created: boolean } | undefined;
    try {
      identity = await provider.createDomain(name.ascii);
      await provider.setMailFrom(name.ascii, `${MAIL_FROM_LABEL}.${name.ascii}`);
    } catch (err) {
      // Nothing is stored: leave nothing at the provider either.
      if (identity?.created) await provider.delete(name.ascii).catch(() => undefined);
      if (isProviderBadRequest(err)) {
        deps.logger.info({ err, domain: name.ascii }, "provider refused the domain name");
        throw new AppError(ErrorCode.VALIDATION, "Invalid domain format", { cause: err });
      }
      deps.logger.error({ err, domain: name.ascii }, "provider refused the domain identity");
      throw new AppError(ErrorCode.INTERNAL, "Failed to register the domain with the email provider", {
        cause: err,
      });
    }
    const records = buildDnsRecords({
      asciiDomain: name.ascii,
      verificationToken: identity.verificationToken,
      dkimTokens: identity.dkimTokens,
      region: provider.region,
    });
    const domainId = randomUUID();
    try {
      await withTransaction(db.pool, async (c) => {
        // Two projects registering one domain at once both pass the check above (the second provider call
        // reuses the first's identity): serialize them on the name and check again, so one gets the 409.
        await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`domain:${name.ascii}`]);
        const taken = await c.query(
          "SELECT 1 FROM domain_identities WHERE active_domain = $1 AND project_id <> $2",
          [name.ascii, projectId],
        );
        if (taken.rowCount)
          throw new AppError(
            ErrorCode.CONFLICT,
            `Domain ${name.unicode} is already registered by another project`,
          );
        await c.query(
          `INSERT INTO domain_identities (id, project_id, domain, domain_unicode, status, verification_token, dkim_tokens, mail_from_domain, external_key, active_domain, updated_at)
           VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $3, now())`,
          [
            domainId,
            projectId,
            name.ascii,
            name.unicode,
            identity.verificationToken,
            identity.dkimTokens,
            `${MAIL_FROM_LABEL}.${name.ascii}`,
            externalKey,
          ],
        );
        await c.query(
          `INSERT INTO dns_records (id, project_id, domain_id, position, type, name, value, purpose)
           SELECT gen_random_uuid(), $1, $2, p, t, n, v, pu FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(p, t, n, v, pu)`,
          [
            projectId,
            domainId,
            records.map((_, i) => i),
            records.map((x) => x.type),
            records.map((x) => x.name),
            records.map((x) => x.value),
            records.map((x) => x.purpose),
          ],
        );
        await c.query(
          `INSERT INTO sender_profiles (id, project_id, domain_id, sender_name, sender_email, external_key, active, updated_at)
           VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, true, now())
           ON CONFLICT (project_id, sender_email) DO UPDATE SET domain_id = $2, sender_name = $3, active = true, domain_authenticated = false, updated_at = now()`,
          [projectId, domainId, senderName, senderEmail, externalKey],
        );
      });
    } catch (err) {
      if ((err as { code?: string }).code === "23505")
        throw new AppError(
          ErrorCode.CONFLICT,
          `Domain ${name.unicode} is already registered in this project`,
        );
      throw err;
    }
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
    const d = await findDomain(db, projectId, q);
    const sender = await domainSender(db, projectId, d.id);
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
    const d = await findDomain(db, projectId, req.params.domain);
    res.json({
      success: true,
      domain: d.domain_unicode,
      dns_records: await storedRecords(db, projectId, d.id),
    });
  });

  r.post("/domains/:domain/verify", async (req, res) => {
    const { projectId } = getAuth(res);
    const d = await findDomain(db, projectId, req.params.domain);
    let id: Awaited<ReturnType<IdentityProvider["get"]>>;
    try {
      id = await provider.get(d.domain);
    } catch (err) {
      throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to check the domain with the email provider", {
        cause: err,
      });
    }
    const v = {
      domainVerified: id.verificationStatus === "SUCCESS",
      dkimVerified: id.dkimStatus === "SUCCESS",
      mailFromVerified: id.mailFromStatus === "SUCCESS",
      providerFailed: id.verificationStatus === "FAILED" || id.dkimStatus === "FAILED",
    };
    const dmarc = await dmarcPublished(deps.resolveTxt, d.domain);
    const status = domainStatus(v);
    const send = v.domainVerified && v.dkimVerified;
    const recordState = (ok: boolean, st: string) => (ok ? true : st === "FAILED" ? false : null);
    await withTransaction(db.pool, async (c) => {
      await c.query(
        `UPDATE domain_identities SET domain_verified = $2, dkim_verified = $3, mail_from_verified = $4, status = $5, last_verified_at = now(), updated_at = now()
          WHERE id = $1`,
        [d.id, v.domainVerified, v.dkimVerified, v.mailFromVerified, status],
      );
      await c.query(
        `UPDATE dns_records SET verified = CASE purpose WHEN 'ses_verification' THEN $2::boolean WHEN 'dkim' THEN $3::boolean WHEN 'return_path' THEN $4::boolean
                                 WHEN 'spf' THEN $4::boolean WHEN 'dmarc' THEN (CASE WHEN $5 THEN $6::boolean ELSE verified END) ELSE verified END
          WHERE domain_id = $1`,
        [
          d.id,
          recordState(v.domainVerified, id.verificationStatus),
          recordState(v.dkimVerified, id.dkimStatus),
          recordState(v.mailFromVerified, id.mailFromStatus),
          dmarc !== undefined,
          dmarc ?? null,
        ],
      );
      await c.query(
        "UPDATE sender_profiles SET domain_authenticated = $3, updated_at = now() WHERE project_id = $1 AND domain_id = $2",
        [projectId, d.id, send],
      );
    });
    res.json({
      success: true,
      domain: d.domain_unicode,
      verification: {
        domain_verified: v.domainVerified,
        dkim_verified: v.dkimVerified,
        mail_from_verified: v.mailFromVerified,
      },
      can_send: send,
      message: send
        ? v.mailFromVerified
          ? "Domain verified: you can send from it."
          : "Domain verified: you can send from it. The MAIL FROM (bounce) record is not verified yet; it is recommended for deliverability."
        : "Domain not verified yet: check the DNS records (changes can take up to 72 hours to propagate).",
    });
  });

  r.get("/domains/:domain/status", async (req, res) => {
    const { projectId } = getAuth(res);
    const d = await findDomain(db, projectId, req.params.domain);
    const records = await storedRecords(db, projectId, d.id);
    const sender = await domainSender(db, projectId, d.id);
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
    const d = await findDomain(db, projectId, req.params.domain);
    try {
      await provider.delete(d.domain);
    } catch (err) {
      throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to remove the domain at the email provider", {
        cause: err,
      });
    }
    await withTransaction(db.pool, async (c) => {
      await c.query(
        "UPDATE domain_identities SET deleted_at = now(), active_domain = NULL, updated_at = now() WHERE id = $1",
        [d.id],
      );
      await c.query(
        "UPDATE sender_profiles SET active = false, domain_authenticated = false, updated_at = now() WHERE project_id = $1 AND domain_id = $2",
        [projectId, d.id],
      );
    });
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
    const d = await findDomain(db, projectId, req.params.domain);
    const senderEmail = senderOnDomain(senderGiven, d.domain);
    if (!senderEmail)
      throw new AppError(ErrorCode.VALIDATION, `sender_email must end in @${d.domain_unicode}`);
    await withTransaction(db.pool, async (c) => {
      await c.query(RELEASE_DOMAIN_PROFILES, [projectId, d.id, senderEmail]);
      await c.query(
        `INSERT INTO sender_profiles (id, project_id, domain_id, sender_name, sender_email, reply_email, active, domain_authenticated, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, true, $6, now())
         ON CONFLICT (project_id, sender_email) DO UPDATE SET domain_id = $2, sender_name = $3, reply_email = $5, active = true, domain_authenticated = $6, updated_at = now()`,
        [projectId, d.id, senderName, senderEmail, replyEmail, canSend(d)],
      );
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
