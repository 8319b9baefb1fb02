import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { findDomainSender, type DomainRow, type DomainSenderRow } from "./domains.repo";
import { findDomain } from "./find-domain";

/** GET /domains?domain=: the project's domain and its current sender. */
export async function getDomain(
  db: Db,
  projectId: ProjectId,
  param: string,
): Promise<{ domain: DomainRow; sender: DomainSenderRow | null }> {
  const domain = await findDomain(db, projectId, param);
  return { domain, sender: await findDomainSender(db, projectId, domain.id) };
}
