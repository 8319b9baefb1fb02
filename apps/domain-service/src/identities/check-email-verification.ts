import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import {
  storeEmailStatus,
  type EmailIdentityRow,
  type EmailVerificationStatus,
  type SenderProfileRow,
} from "./email-identities.repo";
import type { IdentityProvider } from "./provider-port";
import type { DomainDeps } from "./domain-deps";
import { requireEmailIdentity } from "./find-email-identity";

/**
 * GET /domains/verify-email/status: reads the address's status live from the provider (pending → verified, or
 * failed) and stores it on the identity and its sender profile.
 */
export async function checkEmailVerification(
  deps: Pick<DomainDeps, "db" | "provider">,
  projectId: ProjectId,
  email: string,
): Promise<{
  identity: EmailIdentityRow;
  status: EmailVerificationStatus;
  profile: SenderProfileRow | null;
}> {
  const { identity, profile } = await requireEmailIdentity(deps.db, projectId, email);
  let live: Awaited<ReturnType<IdentityProvider["get"]>>;
  try {
    live = await deps.provider.get(email);
  } catch (err) {
    throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to check the address with the email provider", {
      cause: err,
    });
  }
  const status: EmailVerificationStatus =
    live.verificationStatus === "SUCCESS"
      ? "verified"
      : live.verificationStatus === "FAILED"
        ? "failed"
        : "pending";
  const updated = (await storeEmailStatus(deps.db, projectId, email, status)) ?? profile;
  return { identity, status, profile: updated };
}
