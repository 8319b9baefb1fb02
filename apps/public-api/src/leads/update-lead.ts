import { type LeadUpdateInput, normalizeLeadEmail, type ProjectId } from "@emailsvc/contracts";
import { type Db, LEAD_COLUMNS, type LeadRow, SqlParams } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { findLead, leadView } from "./lead-row";

/**
 * PUT /v1/leads/:id: each given field replaces the lead's (`attributes` and `tags` as a whole; null clears a name
 * or phone). A new email must not be another lead's in the project (409). Fields not given stay as they are.
 */
export async function updateLead(db: Db, projectId: ProjectId, ref: string, input: LeadUpdateInput) {
  const lead = await findLead(db, projectId, ref);
  const params = new SqlParams([projectId, lead.id]);
  const set = ["updated_at = now()"];
  if (input.email !== undefined)
    set.push(
      `email = ${params.add(input.email)}`,
      `email_normalized = ${params.add(normalizeLeadEmail(input.email))}`,
    );
  if (input.first_name !== undefined) set.push(`first_name = ${params.add(input.first_name)}`);
  if (input.last_name !== undefined) set.push(`last_name = ${params.add(input.last_name)}`);
  if (input.phone !== undefined) set.push(`phone = ${params.add(input.phone)}`);
  if (input.attributes !== undefined)
    set.push(`attributes = ${params.add(JSON.stringify(input.attributes))}::jsonb`);
  if (input.tags !== undefined) set.push(`tags = ${params.add(input.tags)}::text[]`);
  if (input.subscription !== undefined) {
    const s = params.add(input.subscription);
    set.push(
      `subscription_changed_at = CASE WHEN subscription = ${s}::text THEN subscription_changed_at ELSE now() END`,
      `subscription_source = CASE WHEN subscription = ${s}::text THEN subscription_source ELSE 'api' END`,
      `subscription = ${s}::text`,
    );
  }
  try {
    const { rows } = await db.pool.query<LeadRow>(
      `UPDATE leads SET ${set.join(", ")} WHERE project_id = $1 AND id = $2 RETURNING ${LEAD_COLUMNS}`,
      params.values,
    );
    if (!rows[0]) throw new AppError(ErrorCode.NOT_FOUND, "Lead not found");
    return { success: true, lead: leadView(rows[0]) };
  } catch (err) {
    if ((err as { code?: string }).code === "23505")
      throw new AppError(ErrorCode.CONFLICT, `email: another lead of the project has ${input.email}`);
    throw err;
  }
}
