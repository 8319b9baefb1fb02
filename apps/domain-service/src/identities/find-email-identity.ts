import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { findEmailIdentity, type EmailIdentityRow, type SenderProfileRow } from "./email-identities.repo";

/** The project's identity for `email` with its sender profile; 404 when the project has not registered it. */
export async function requireEmailIdentity(
  db: Db,
  projectId: ProjectId,
  email: string,
): Promise<{ identity: EmailIdentityRow; profile: SenderProfileRow | null }> {
  const found = await findEmailIdentity(db, projectId, email);
  if (!found) throw new AppError(ErrorCode.NOT_FOUND, `${email} is not registered in this project`);
  return found;
}
