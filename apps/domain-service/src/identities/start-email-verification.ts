import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import {
  emailOwnership,
  insertEmailIdentity,
  type EmailIdentityRow,
  type SenderProfileRow,
} from "./email-identities.repo";
import type { DomainDeps } from "./domain-deps";

export interface StartEmailVerificationInput {
  /** Normalized. */
  email: string;
  senderName: string;
  externalKey: string | null;
}

/**
 * POST /domains/verify-email (spec 4.10): the provider mails a verification link to the address; its identity
 * is stored `pending` with a sender profile.
 */
export async function startEmailVerification(
  deps: Pick<DomainDeps, "db" | "provider">,
  projectId: ProjectId,
  input: StartEmailVerificationInput,
): Promise<{ identity: EmailIdentityRow; profile: SenderProfileRow }> {
  const { email } = input;
  // The provider's identity is one per account: an address another project registered is theirs (reusing it
  // would hand this project their verification, and deleting it here would break it there).
  const owner = await emailOwnership(deps.db, projectId, email);
  if (owner === "this-project")
    throw new AppError(ErrorCode.CONFLICT, `${email} is already registered in this project`);
  if (owner === "another-project")
    throw new AppError(ErrorCode.CONFLICT, `${email} is already registered by another project`);
  try {
    await deps.provider.createEmail(email);
  } catch (err) {
    throw new AppError(ErrorCode.PROVIDER_ERROR, "Failed to start verification with the email provider", {
      cause: err,
    });
  }
  const stored = await insertEmailIdentity(deps.db, projectId, input);
  if (stored === "another-project")
    throw new AppError(ErrorCode.CONFLICT, `${email} is already registered by another project`);
  if (stored === "this-project")
    throw new AppError(ErrorCode.CONFLICT, `${email} is already registered in this project`);
  return stored;
}
