import { AppError, ErrorCode, senderAddressForms, senderDomain, type ProjectId } from "@emailsvc/contracts";
import { type Db, senderVerifiedSql, suppressedAmongSql } from "@emailsvc/db";

export type SenderVerification =
  { verified: true; via: "sender_profile" | "domain" } | { verified: false; domain: string };

const GATE_SQL = senderVerifiedSql("$1", "$2::text[]", "$3");

/**
 * Spec 4.4 sender verification, in the spec's order: (1) a sender profile of the project with this address,
 * `email_verified` and active; (2) a verified, not deleted domain identity of the project for the address's
 * domain. The same round trip also returns which of `recipients` the project has suppressed (lowercased
 * address → reason), since every send needs both answers before it is accepted.
 */
export async function checkSenderAndSuppressions(
  db: Pick<Db, "pool">,
  projectId: ProjectId,
  email: string,
  recipients: readonly string[],
): Promise<{ verification: SenderVerification; suppressed: Map<string, string> }> {
  const domain = senderDomain(email);
  const { rows } = await db.pool.query<{
    sender: boolean;
    domain: boolean;
    suppressed: Record<string, string> | null;
  }>(
    `SELECT ${GATE_SQL.profile} AS sender, ${GATE_SQL.domain} AS domain,
       (SELECT json_object_agg(email, reason) ${suppressedAmongSql("$1", "$4::text[]")}) AS suppressed`,
    [projectId, senderAddressForms(email), domain, [...new Set(recipients.map((r) => r.toLowerCase()))]],
  );
  const row = rows[0];
  const suppressed = new Map(Object.entries(row?.suppressed ?? {}));
  if (row?.sender) return { verification: { verified: true, via: "sender_profile" }, suppressed };
  if (row?.domain) return { verification: { verified: true, via: "domain" }, suppressed };
  return { verification: { verified: false, domain }, suppressed };
}

export async function checkSenderVerified(
  db: Pick<Db, "pool">,
  projectId: ProjectId,
  email: string,
): Promise<SenderVerification> {
  return (await checkSenderAndSuppressions(db, projectId, email, [])).verification;
}

/**
 * The 403 of spec 4.4 (and of the v1 send endpoints): `{ success:false, error, code: "SENDER_NOT_VERIFIED" }`.
 * The message names the domain as the client wrote it (not its punycode form).
 */
export function senderNotVerified(email: string): AppError {
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return new AppError(
    ErrorCode.SENDER_NOT_VERIFIED,
    `Sender ${email} is not verified: verify the address or the domain ${domain} first`,
  );
}
