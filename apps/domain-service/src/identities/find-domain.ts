import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { parseDomain } from "./domain/domain-name";
import { findActiveDomain, type DomainRow } from "./domains.repo";

/** The active domain of this project, by either form of its name; 404 for anything else (other projects too). */
export async function findDomain(db: Db, projectId: ProjectId, param: string): Promise<DomainRow> {
  const name = parseDomain(param);
  const row = name ? await findActiveDomain(db, projectId, name.ascii) : null;
  if (!row) throw new AppError(ErrorCode.NOT_FOUND, "Domain not found in this project");
  return row;
}
