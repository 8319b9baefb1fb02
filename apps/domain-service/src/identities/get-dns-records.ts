import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { listDnsRecords, type DomainRow, type StoredDnsRecord } from "./domains.repo";
import { findDomain } from "./find-domain";

/** GET /domains/:domain/dns-records: the records given at registration, with what verification found. */
export async function getDnsRecords(
  db: Db,
  projectId: ProjectId,
  param: string,
): Promise<{ domain: DomainRow; records: StoredDnsRecord[] }> {
  const domain = await findDomain(db, projectId, param);
  return { domain, records: await listDnsRecords(db, projectId, domain.id) };
}
