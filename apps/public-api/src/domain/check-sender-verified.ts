import { domainToASCII } from "node:url";
import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";

export type SenderVerification =
  { verified: true; via: "sender_profile" | "domain" } | { verified: false; domain: string };

/** The part after the last `@`, lowercased, in its ASCII (punycode) form as domain identities store it. */
export function senderDomain(email: string): string {
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return domainToASCII(domain) || domain;
}

/**
 * Spec 4.4 sender verification, in the spec's order: (1) a sender profile of the project with this address,
 * `email_verified` and active; (2) a verified, not deleted domain identity of the project for the address's
 * domain. One round trip answers both; the order only decides what `via` reports.
 */
export async function checkSenderVerified(
  db: Pick<Db, "pool">,
  projectId: string,
  email: string,
): Promise<SenderVerification> {
  const domain = senderDomain(email);
  const { rows } = await db.pool.query<{ sender: boolean; domain: boolean }>(
    `SELECT
       EXISTS (SELECT 1 FROM sender_profiles
                WHERE project_id = $1 AND sender_email = $2 AND email_verified AND active) AS sender,
       EXISTS (SELECT 1 FROM domain_identities
                WHERE project_id = $1 AND domain = $3 AND status = 'verified' AND deleted_at IS NULL) AS domain`,
    [projectId, email.toLowerCase(), domain],
  );
  const row = rows[0];
  if (row?.sender) return { verified: true, via: "sender_profile" };
  if (row?.domain) return { verified: true, via: "domain" };
  return { verified: false, domain };
}

/** The 403 of spec 4.4 (and of the v1 send endpoints): `{ success:false, error, code: "SENDER_NOT_VERIFIED" }`. */
export function senderNotVerified(email: string, domain: string): AppError {
  return new AppError(
    ErrorCode.SENDER_NOT_VERIFIED,
    `Sender ${email} is not verified: verify the address or the domain ${domain} first`,
  );
}

export async function assertSenderVerified(
  db: Pick<Db, "pool">,
  projectId: string,
  email: string,
): Promise<void> {
  const v = await checkSenderVerified(db, projectId, email);
  // The message names the domain as the client wrote it (not its punycode form).
  if (!v.verified) throw senderNotVerified(email, email.slice(email.lastIndexOf("@") + 1).toLowerCase());
}
