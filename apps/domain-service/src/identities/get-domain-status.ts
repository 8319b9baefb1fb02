import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import {
  findDomainSender,
  listDnsRecords,
  type DomainRow,
  type DomainSenderRow,
  type StoredDnsRecord,
} from "./domains.repo";
import { findDomain } from "./find-domain";

/** GET /domains/:domain/status: the domain as last verified, its records and its current sender. */
export async function getDomainStatus(
  db: Db,
  projectId: ProjectId,
  param: string,
): Promise<{ domain: DomainRow; records: StoredDnsRecord[]; sender: DomainSenderRow | null }> {
  const domain = await findDomain(db, projectId, param);
  const records = await listDnsRecords(db, projectId, domain.id);
  const sender = await findDomainSender(db, projectId, domain.id);
  return { domain, records, sender };
}
