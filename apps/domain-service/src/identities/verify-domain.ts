import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { domainStatus } from "./domain/dns-records";
import { recordDomainVerification, type DomainRow } from "./domains.repo";
import { dmarcPublished } from "./dns-check";
import type { IdentityProvider } from "./provider-port";
import type { DomainDeps } from "./domain-deps";
import { findDomain } from "./find-domain";

export interface DomainVerificationResult {
  domain: DomainRow;
  domainVerified: boolean;
  dkimVerified: boolean;
  mailFromVerified: boolean;
  canSend: boolean;
}

/** A record's state from the provider's status of its kind: verified, failed, or not yet (null). */
const recordState = (ok: boolean, providerStatus: string) =>
  ok ? true : providerStatus === "FAILED" ? false : null;

/**
 * POST /domains/:domain/verify: asks the provider (and DNS, for DMARC, which the provider does not check) and
 * records the answer on the domain, its DNS records and its sender profiles.
 */
export async function verifyDomain(
  deps: Pick<DomainDeps, "db" | "provider" | "resolveTxt">,
  projectId: ProjectId,
  param: string,
): Promise<DomainVerificationResult> {
  const domain = await findDomain(deps.db, projectId, param);
  let id: Awaited<ReturnType<IdentityProvider["get"]>>;
  try {
    id = await deps.provider.get(domain.domain);
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
  const dmarc = await dmarcPublished(deps.resolveTxt, domain.domain);
  const canSend = v.domainVerified && v.dkimVerified;
  await recordDomainVerification(deps.db, projectId, domain.id, {
    domainVerified: v.domainVerified,
    dkimVerified: v.dkimVerified,
    mailFromVerified: v.mailFromVerified,
    status: domainStatus(v),
    records: {
      sesVerification: recordState(v.domainVerified, id.verificationStatus),
      dkim: recordState(v.dkimVerified, id.dkimStatus),
      mailFrom: recordState(v.mailFromVerified, id.mailFromStatus),
      dmarc,
    },
    canSend,
  });
  return {
    domain,
    domainVerified: v.domainVerified,
    dkimVerified: v.dkimVerified,
    mailFromVerified: v.mailFromVerified,
    canSend,
  };
}
