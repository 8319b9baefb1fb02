import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { deleteEmailIdentityRows } from "./email-identities.repo";
import type { DomainDeps } from "./domain-deps";
import { requireEmailIdentity } from "./find-email-identity";

/**
 * DELETE /domains/verify-email: removes the provider's identity, then the address's identity and sender profile
 * (a profile that also belongs to a domain keeps its domain role).
 */
export async function deleteEmailIdentity(
  deps: Pick<DomainDeps, "db" | "provider">,
  projectId: ProjectId,
  email: string,
): Promise<void> {
  await requireEmailIdentity(deps.db, projectId, email);
  try {
    await deps.provider.delete(email);
  } catch (err) {
    throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to remove the address at the email provider", {
      cause: err,
    });
  }
  await deleteEmailIdentityRows(deps.db, projectId, email);
}
