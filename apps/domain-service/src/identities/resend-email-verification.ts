import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { markEmailPending, storeEmailStatus } from "./email-identities.repo";
import { isProviderNotFound } from "./provider-port";
import type { DomainDeps } from "./domain-deps";
import { requireEmailIdentity } from "./find-email-identity";

/**
 * POST /domains/verify-email/resend: the provider sends its verification mail when the identity is created, so
 * the identity is recreated. A verified address is left alone (409): recreating it would undo the verification
 * (spec 3: resend is a step of `pending`).
 */
export async function resendEmailVerification(
  deps: Pick<DomainDeps, "db" | "provider">,
  projectId: ProjectId,
  email: string,
): Promise<void> {
  const { db, provider } = deps;
  await requireEmailIdentity(db, projectId, email);
  try {
    const live = await provider.get(email).catch((err: unknown) => {
      if (isProviderNotFound(err)) return null;
      throw err;
    });
    if (live?.verificationStatus === "SUCCESS") {
      await storeEmailStatus(db, projectId, email, "verified");
      throw new AppError(ErrorCode.CONFLICT, `${email} is already verified; no email was sent`);
    }
    if (live) await provider.delete(email);
    await provider.createEmail(email);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to resend the verification email", { cause: err });
  }
  await markEmailPending(db, projectId, email);
}
