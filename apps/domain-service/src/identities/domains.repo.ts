import type { ProjectId } from "@emailsvc/contracts";
import { withTransaction, type Db } from "@emailsvc/db";
import type { DnsRecordSpec } from "./domain/dns-records";

/** A row of domain_identities. */
export interface DomainRow {
  id: string;
  domain: string;
  domain_unicode: string;
  status: string;
  domain_verified: boolean;
  dkim_verified: boolean;
  mail_from_verified: boolean;
  created_at: Date;
  last_verified_at: Date | null;
  external_key: string | null;
}

/** A stored DNS record of a domain, with what the last verification found (null: not checked or not yet). */
export interface StoredDnsRecord {
  type: string;
  name: string;
  value: string;
  purpose: string;
  verified: boolean | null;
}

export interface DomainSenderRow {
  sender_name: string;
  sender_email: string;
  reply_email: string | null;
}

/**
 * Who holds the provider identity of `asciiDomain`: this project, another one, or nobody. The provider's
 * identity is one per account, so this is the one question asked across projects (it reveals no other data).
 */
export async function domainOwnership(
  db: Db,
  projectId: ProjectId,
  asciiDomain: string,
): Promise<"this-project" | "another-project" | "free"> {
  const owners = await db.pool.query<{ project_id: ProjectId }>(
    "SELECT project_id FROM domain_identities WHERE active_domain = $1",
    [asciiDomain],
  );
  if (owners.rows.some((o) => o.project_id === projectId)) return "this-project";
  return owners.rowCount ? "another-project" : "free";
}

/** The project's active domain named `asciiDomain`, or null. */
export async function findActiveDomain(
  db: Db,
  projectId: ProjectId,
  asciiDomain: string,
): Promise<DomainRow | null> {
  const r = await db.pool.query<DomainRow>(
    "SELECT * FROM domain_identities WHERE project_id = $1 AND active_domain = $2",
    [projectId, asciiDomain],
  );
  return r.rows[0] ?? null;
}

/** The domain's current sender: its most recently updated active sender profile. */
export async function findDomainSender(
  db: Db,
  projectId: ProjectId,
  domainId: string,
): Promise<DomainSenderRow | null> {
  const r = await db.pool.query<DomainSenderRow>(
    "SELECT sender_name, sender_email, reply_email FROM sender_profiles WHERE project_id = $1 AND domain_id = $2 AND active ORDER BY updated_at DESC LIMIT 1",
    [projectId, domainId],
  );
  return r.rows[0] ?? null;
}

/** The domain's DNS records in the order they were given to the client. */
export async function listDnsRecords(
  db: Db,
  projectId: ProjectId,
  domainId: string,
): Promise<StoredDnsRecord[]> {
  const r = await db.pool.query<StoredDnsRecord>(
    "SELECT type, name, value, purpose, verified FROM dns_records WHERE project_id = $1 AND domain_id = $2 ORDER BY position",
    [projectId, domainId],
  );
  return r.rows;
}

export interface NewDomain {
  id: string;
  ascii: string;
  unicode: string;
  verificationToken: string;
  dkimTokens: string[];
  mailFromDomain: string;
  externalKey: string | null;
  records: readonly DnsRecordSpec[];
  sender: { name: string; email: string };
}

/**
 * Stores a registered domain with its DNS records and its sender profile, in one transaction. Two projects
 * registering one domain at once both pass `domainOwnership` (the second provider call reuses the first's
 * identity): the transaction serializes them on the name and checks again, so one of them gets
 * `another-project`. `this-project`: the project registered it meanwhile (the active-domain unique key).
 */
export async function insertDomain(
  db: Db,
  projectId: ProjectId,
  d: NewDomain,
): Promise<"inserted" | "another-project" | "this-project"> {
  try {
    return await withTransaction(db.pool, async (c) => {
      await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`domain:${d.ascii}`]);
      const taken = await c.query(
        "SELECT 1 FROM domain_identities WHERE active_domain = $1 AND project_id <> $2",
        [d.ascii, projectId],
      );
      if (taken.rowCount) return "another-project";
      await c.query(
        `INSERT INTO domain_identities (id, project_id, domain, domain_unicode, status, verification_token, dkim_tokens, mail_from_domain, external_key, active_domain, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $3, now())`,
        [
          d.id,
          projectId,
          d.ascii,
          d.unicode,
          d.verificationToken,
          d.dkimTokens,
          d.mailFromDomain,
          d.externalKey,
        ],
      );
      await c.query(
        `INSERT INTO dns_records (id, project_id, domain_id, position, type, name, value, purpose)
         SELECT gen_random_uuid(), $1, $2, p, t, n, v, pu FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(p, t, n, v, pu)`,
        [
          projectId,
          d.id,
          d.records.map((_, i) => i),
          d.records.map((x) => x.type),
          d.records.map((x) => x.name),
          d.records.map((x) => x.value),
          d.records.map((x) => x.purpose),
        ],
      );
      await c.query(
        `INSERT INTO sender_profiles (id, project_id, domain_id, sender_name, sender_email, external_key, active, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, true, now())
         ON CONFLICT (project_id, sender_email) DO UPDATE SET domain_id = $2, sender_name = $3, active = true, domain_authenticated = false, updated_at = now()`,
        [projectId, d.id, d.sender.name, d.sender.email, d.externalKey],
      );
      return "inserted" as const;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505") return "this-project";
    throw err;
  }
}

/** What a verification found: per record kind, true (verified), false (failed) or null (not yet). */
export interface DomainVerification {
  domainVerified: boolean;
  dkimVerified: boolean;
  mailFromVerified: boolean;
  status: string;
  records: {
    sesVerification: boolean | null;
    dkim: boolean | null;
    /** The MAIL FROM records (return_path and spf). */
    mailFrom: boolean | null;
    /** undefined: DNS did not answer, the stored state is kept. */
    dmarc: true | null | undefined;
  };
  /** Whether the domain's sender profiles may send (domain and DKIM verified). */
  canSend: boolean;
}

/** Records a verification on the domain, its DNS records and its sender profiles, in one transaction. */
export async function recordDomainVerification(
  db: Db,
  projectId: ProjectId,
  domainId: string,
  v: DomainVerification,
): Promise<void> {
  await withTransaction(db.pool, async (c) => {
    await c.query(
      `UPDATE domain_identities SET domain_verified = $3, dkim_verified = $4, mail_from_verified = $5, status = $6, last_verified_at = now(), updated_at = now()
        WHERE project_id = $1 AND id = $2`,
      [projectId, domainId, v.domainVerified, v.dkimVerified, v.mailFromVerified, v.status],
    );
    await c.query(
      `UPDATE dns_records SET verified = CASE purpose WHEN 'ses_verification' THEN $3::boolean WHEN 'dkim' THEN $4::boolean WHEN 'return_path' THEN $5::boolean
                               WHEN 'spf' THEN $5::boolean WHEN 'dmarc' THEN (CASE WHEN $6 THEN $7::boolean ELSE verified END) ELSE verified END
        WHERE project_id = $1 AND domain_id = $2`,
      [
        projectId,
        domainId,
        v.records.sesVerification,
        v.records.dkim,
        v.records.mailFrom,
        v.records.dmarc !== undefined,
        v.records.dmarc ?? null,
      ],
    );
    await c.query(
      "UPDATE sender_profiles SET domain_authenticated = $3, updated_at = now() WHERE project_id = $1 AND domain_id = $2",
      [projectId, domainId, v.canSend],
    );
  });
}

/** Marks the domain deleted (its name free again) and deactivates its sender profiles (spec 3). */
export async function markDomainDeleted(db: Db, projectId: ProjectId, domainId: string): Promise<void> {
  await withTransaction(db.pool, async (c) => {
    await c.query(
      "UPDATE domain_identities SET deleted_at = now(), active_domain = NULL, updated_at = now() WHERE project_id = $1 AND id = $2",
      [projectId, domainId],
    );
    await c.query(
      "UPDATE sender_profiles SET active = false, domain_authenticated = false, updated_at = now() WHERE project_id = $1 AND domain_id = $2",
      [projectId, domainId],
    );
  });
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

/** Makes `sender` the domain's one active sender profile (the others released), in one transaction. */
export async function replaceDomainSender(
  db: Db,
  projectId: ProjectId,
  domainId: string,
  sender: { name: string; email: string; replyEmail: string | null; domainAuthenticated: boolean },
): Promise<void> {
  await withTransaction(db.pool, async (c) => {
    await c.query(RELEASE_DOMAIN_PROFILES, [projectId, domainId, sender.email]);
    await c.query(
      `INSERT INTO sender_profiles (id, project_id, domain_id, sender_name, sender_email, reply_email, active, domain_authenticated, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, true, $6, now())
       ON CONFLICT (project_id, sender_email) DO UPDATE SET domain_id = $2, sender_name = $3, reply_email = $5, active = true, domain_authenticated = $6, updated_at = now()`,
      [projectId, domainId, sender.name, sender.email, sender.replyEmail, sender.domainAuthenticated],
    );
  });
}
