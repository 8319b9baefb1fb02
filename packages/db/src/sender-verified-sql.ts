/**
 * Spec 4.4's two ways a sender is verified, as SQL over placeholders (or expressions) of the caller's statement:
 * (1) a sender profile of the project with this address, `email_verified` and active; (2) a verified, not
 * deleted domain identity of the project for the address's domain. `emails` is a text[] of
 * `senderAddressForms(email)`, `domain` is `senderDomain(email)`.
 */
export function senderVerifiedSql(project: string, emails: string, domain: string) {
  return {
    profile: `EXISTS (SELECT 1 FROM sender_profiles
                WHERE project_id = ${project} AND sender_email = ANY(${emails}) AND email_verified AND active)`,
    domain: `EXISTS (SELECT 1 FROM domain_identities
                WHERE project_id = ${project} AND domain = ${domain} AND status = 'verified' AND deleted_at IS NULL)`,
  };
}

/** The project's suppressions among `emails` (a text[] of lowercased addresses), as a FROM … WHERE clause. */
export const suppressedAmongSql = (project: string, emails: string) =>
  `FROM suppressions WHERE project_id = ${project} AND email = ANY(${emails})`;
