import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { canSend } from "./domain/dns-records";
import { senderOnDomain } from "./domain/domain-name";
import { replaceDomainSender, type DomainRow } from "./domains.repo";
import { findDomain } from "./find-domain";

export interface SetDomainSenderInput {
  senderName: string;
  /** As given: it must be an address on the domain. */
  senderEmail: string;
  /** Normalized, or null for none. */
  replyEmail: string | null;
}

/**
 * PUT /domains/:domain/sender: makes the address the domain's sender; the domain's other profiles are released
 * (see `replaceDomainSender`). Resolves with the domain and the normalized sender address.
 */
export async function setDomainSender(
  db: Db,
  projectId: ProjectId,
  param: string,
  input: SetDomainSenderInput,
): Promise<{ domain: DomainRow; senderEmail: string }> {
  const domain = await findDomain(db, projectId, param);
  const senderEmail = senderOnDomain(input.senderEmail, domain.domain);
  if (!senderEmail)
    throw new AppError(ErrorCode.VALIDATION, `sender_email must end in @${domain.domain_unicode}`);
  await replaceDomainSender(db, projectId, domain.id, {
    name: input.senderName,
    email: senderEmail,
    replyEmail: input.replyEmail,
    domainAuthenticated: canSend(domain),
  });
  return { domain, senderEmail };
}
