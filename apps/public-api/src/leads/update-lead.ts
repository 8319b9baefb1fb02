import type { LeadUpdateInput, ProjectId } from "@emailsvc/contracts";
import { type Db, updateLeadRow } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { findLead, leadView } from "./lead-row";

/**
 * PUT /v1/leads/:id: each given field replaces the lead's (`attributes` and `tags` as a whole; null clears a name
 * or phone). A new email must not be another lead's in the project (409). Fields not given stay as they are.
 */
export async function updateLead(db: Db, projectId: ProjectId, ref: string, input: LeadUpdateInput) {
  const lead = await findLead(db, projectId, ref);
  try {
    const row = await updateLeadRow(db, projectId, lead.id, input);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, "Lead not found");
    return { success: true, lead: leadView(row) };
  } catch (err) {
    if ((err as { code?: string }).code === "23505")
      throw new AppError(ErrorCode.CONFLICT, `email: another lead of the project has ${input.email}`);
    throw err;
  }
}
