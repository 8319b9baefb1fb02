import { randomUUID } from "node:crypto";
import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { buildDnsRecords, type DnsRecordSpec } from "./domain/dns-records";
import { MAIL_FROM_LABEL, type DomainName } from "./domain/domain-name";
import { domainOwnership, insertDomain } from "./domains.repo";
import { isProviderBadRequest } from "./provider-port";
import type { DomainDeps } from "./domain-deps";

export interface RegisterDomainInput {
  name: DomainName;
  senderName: string;
  /** Already checked to be an address on the domain. */
  senderEmail: string;
  externalKey: string | null;
}

/**
 * POST /domains/register: creates the provider's domain identity (with its MAIL FROM domain) and stores the
 * domain, its DNS records and its sender profile. Resolves with the records the client must publish.
 */
export async function registerDomain(
  deps: Pick<DomainDeps, "db" | "provider" | "logger">,
  projectId: ProjectId,
  input: RegisterDomainInput,
): Promise<DnsRecordSpec[]> {
  const { db, provider } = deps;
  const { name } = input;
  // The provider's identity is one per account: a domain another project registered is theirs (reusing it
  // would hand this project their DKIM tokens and verification, and deleting it here would break it there).
  const owner = await domainOwnership(db, projectId, name.ascii);
  if (owner === "this-project")
    throw new AppError(ErrorCode.CONFLICT, `Domain ${name.unicode} is already registered in this project`);
  if (owner === "another-project")
    throw new AppError(ErrorCode.CONFLICT, `Domain ${name.unicode} is already registered by another project`);

  const mailFromDomain = `${MAIL_FROM_LABEL}.${name.ascii}`;
  let identity: { verificationToken: string; dkimTokens: string[]; created: boolean } | undefined;
  try {
    identity = await provider.createDomain(name.ascii);
    await provider.setMailFrom(name.ascii, mailFromDomain);
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
  const stored = await insertDomain(db, projectId, {
    id: randomUUID(),
    ascii: name.ascii,
    unicode: name.unicode,
    verificationToken: identity.verificationToken,
    dkimTokens: identity.dkimTokens,
    mailFromDomain,
    externalKey: input.externalKey,
    records,
    sender: { name: input.senderName, email: input.senderEmail },
  });
  if (stored === "another-project")
    throw new AppError(ErrorCode.CONFLICT, `Domain ${name.unicode} is already registered by another project`);
  if (stored === "this-project")
    throw new AppError(ErrorCode.CONFLICT, `Domain ${name.unicode} is already registered in this project`);
  return records;
}
