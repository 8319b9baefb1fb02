import type { ProjectId } from "@emailsvc/contracts";
import { connOf, type DbOrClient } from "./create-db";

// A project's sending identities as the dashboard lists them (issue 45): its domains and its single addresses,
// with the states domain-service last stored. Everything that changes them (the provider's identity API, DNS
// checks) stays in domain-service; public-api's admin API reaches those through domain-service's internal port.

/** One row of the domain list: the verification state of each check and the domain's current sender. */
export interface DomainListRow {
  domain: string;
  domain_unicode: string;
  /** 'pending' | 'verified' | 'partially_verified' | 'failed' */
  status: string;
  domain_verified: boolean;
  dkim_verified: boolean;
  mail_from_verified: boolean;
  last_verified_at: Date | null;
  created_at: Date;
  sender_name: string | null;
  sender_email: string | null;
  /** DNS records the last verification found in place, and how many the domain has (7). */
  records_verified: number;
  records_total: number;
}

/** One single-address verification (spec 4.10's verify-email) with its sender name. */
export interface EmailIdentityListRow {
  sender_email: string;
  sender_name: string | null;
  /** 'pending' | 'verified' | 'failed', as last read from the provider */
  verification_status: string;
  created_at: Date;
  updated_at: Date;
}

/** A project holds a handful of identities; the cap only bounds a pathological one's page. */
export const IDENTITY_LIST_CAP = 500;

/** The project's active (not deleted) domains, newest first. */
export async function listProjectDomains(db: DbOrClient, projectId: ProjectId): Promise<DomainListRow[]> {
  const { rows } = await connOf(db).query<DomainListRow>(
    `SELECT d.domain, d.domain_unicode, d.status, d.domain_verified, d.dkim_verified, d.mail_from_verified,
            d.last_verified_at, d.created_at, s.sender_name, s.sender_email,
            (SELECT count(*)::int FROM dns_records r
              WHERE r.project_id = d.project_id AND r.domain_id = d.id AND r.verified) AS records_verified,
            (SELECT count(*)::int FROM dns_records r
              WHERE r.project_id = d.project_id AND r.domain_id = d.id) AS records_total
       FROM domain_identities d
       LEFT JOIN LATERAL (
         SELECT sender_name, sender_email FROM sender_profiles p
          WHERE p.project_id = d.project_id AND p.domain_id = d.id AND p.active
          ORDER BY p.updated_at DESC LIMIT 1
       ) s ON true
      WHERE d.project_id = $1 AND d.deleted_at IS NULL
      ORDER BY d.created_at DESC, d.id DESC
      LIMIT $2`,
    [projectId, IDENTITY_LIST_CAP],
  );
  return rows;
}

/** The project's single-address verifications, newest first. */
export async function listProjectEmailIdentities(
  db: DbOrClient,
  projectId: ProjectId,
): Promise<EmailIdentityListRow[]> {
  const { rows } = await connOf(db).query<EmailIdentityListRow>(
    `SELECT e.sender_email, p.sender_name, e.verification_status, e.created_at, e.updated_at
       FROM email_identities e
       LEFT JOIN sender_profiles p ON p.id = e.sender_profile_id AND p.project_id = e.project_id
      WHERE e.project_id = $1
      ORDER BY e.created_at DESC, e.id DESC
      LIMIT $2`,
    [projectId, IDENTITY_LIST_CAP],
  );
  return rows;
}
