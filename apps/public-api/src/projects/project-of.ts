import type { ProjectId } from "@emailsvc/contracts";
import { type Db, findProjectId } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";

/** The admin API's project resolution: a URL's id becomes a ProjectId once the project is found (404 otherwise). */
export async function projectOf(db: Db, projectId: string): Promise<ProjectId> {
  const found = await findProjectId(db, projectId);
  if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
  return found;
}
