import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { markDomainDeleted, type DomainRow } from "./domains.repo";
import type { DomainDeps } from "./domain-deps";
import { findDomain } from "./find-domain";

/**
 * DELETE /domains/:domain: removes the provider's identity, then marks the domain deleted (its name free to
 * register again) and deactivates its sender profiles.
 */
export async function deleteDomain(
  deps: Pick<DomainDeps, "db" | "provider">,
  projectId: ProjectId,
  param: string,
): Promise<DomainRow> {
  const domain = await findDomain(deps.db, projectId, param);
  try {
    await deps.provider.delete(domain.domain);
  } catch (err) {
    throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to remove the domain at the email provider", {
      cause: err,
    });
  }
  await markDomainDeleted(deps.db, projectId, domain.id);
  return domain;
}
