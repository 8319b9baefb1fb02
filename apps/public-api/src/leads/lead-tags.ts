import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { LEAD_LIMITS, type ProjectId } from "@emailsvc/contracts";
import { findLead } from "./lead-row";

// Tags by email (spec 4.6): adding is idempotent (a tag the lead has is not added twice), removing takes a list.

export async function addLeadTags(db: Db, projectId: ProjectId, ref: string, tags: string[]) {
  const lead = await findLead(db, projectId, ref);
  const { rows } = await db.pool.query<{ tags: string[] }>(
    `UPDATE leads SET tags = COALESCE(tags, '{}') || ARRAY(SELECT t FROM unnest($3::text[]) t WHERE NOT t = ANY(COALESCE(tags, '{}'))),
            updated_at = now()
      WHERE project_id = $1 AND id = $2
        AND cardinality(COALESCE(tags, '{}') || ARRAY(SELECT t FROM unnest($3::text[]) t WHERE NOT t = ANY(COALESCE(tags, '{}')))) <= ${LEAD_LIMITS.tags}
      RETURNING tags`,
    [projectId, lead.id, tags],
  );
  if (!rows[0])
    throw new AppError(ErrorCode.VALIDATION, `tags: a lead holds at most ${LEAD_LIMITS.tags} tags`);
  return { success: true, email: lead.email, tags: rows[0].tags };
}

export async function removeLeadTags(db: Db, projectId: ProjectId, ref: string, tags: string[]) {
  const lead = await findLead(db, projectId, ref);
  const { rows } = await db.pool.query<{ tags: string[] }>(
    `UPDATE leads SET tags = ARRAY(SELECT t FROM unnest(COALESCE(tags, '{}')) t WHERE NOT t = ANY($3::text[])), updated_at = now()
      WHERE project_id = $1 AND id = $2 RETURNING tags`,
    [projectId, lead.id, tags],
  );
  if (!rows[0]) throw new AppError(ErrorCode.NOT_FOUND, "Lead not found");
  return { success: true, email: lead.email, tags: rows[0].tags };
}

export async function getLeadTags(db: Db, projectId: ProjectId, ref: string) {
  const lead = await findLead(db, projectId, ref);
  return { success: true, email: lead.email, tags: lead.tags ?? [] };
}
