import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/contracts";
import { parseDomain } from "../domain/domain-name";

export interface DomainRow {
  id: string;
  domain: string;
  domain_unicode: string;
  status: string;
  domain_verified: boolean;
  dkim_verified: boolean;
  mail_from_verified: boolean;
  created_at: Date;
  last_verified_at: Date | null;
  external_key: string | null;
}

/** The active domain of this project, by either form of its name; 404 for anything else (other projects too). */
export async function findDomain(db: Db, projectId: string, param: string): Promise<DomainRow> {
  const name = parseDomain(param);
  const row = name
    ? (
        await db.pool.query<DomainRow>(
          "SELECT * FROM domain_identities WHERE project_id = $1 AND active_domain = $2",
          [projectId, name.ascii],
        )
      ).rows[0]
    : undefined;
  if (!row) throw new AppError(ErrorCode.NOT_FOUND, "Domain not found in this project");
  return row;
}

export async function domainSender(db: Db, projectId: string, domainId: string) {
  const r = await db.pool.query<{ sender_name: string; sender_email: string; reply_email: string | null }>(
    "SELECT sender_name, sender_email, reply_email FROM sender_profiles WHERE project_id = $1 AND domain_id = $2 AND active ORDER BY updated_at DESC LIMIT 1",
    [projectId, domainId],
  );
  return r.rows[0] ?? null;
}

export const canSend = (d: Pick<DomainRow, "domain_verified" | "dkim_verified">) =>
  d.domain_verified && d.dkim_verified;
