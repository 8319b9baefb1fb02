import { changeLeadTags, type Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { LEAD_LIMITS, type ProjectId } from "@emailsvc/contracts";
import { findLead } from "./lead-row";

// Tags by email (spec 4.6): adding is idempotent (a tag the lead has is not added twice), removing takes a list.

export async function addLeadTags(db: Db, projectId: ProjectId, ref: string, tags: string[]) {
  const lead = await findLead(db, projectId, ref);
  const added = await changeLeadTags(db, projectId, lead.id, { add: tags });
  if (!added) throw new AppError(ErrorCode.VALIDATION, `tags: a lead holds at most ${LEAD_LIMITS.tags} tags`);
  return { success: true, email: lead.email, tags: added };
}

export async function removeLeadTags(db: Db, projectId: ProjectId, ref: string, tags: string[]) {
  const lead = await findLead(db, projectId, ref);
  const left = await changeLeadTags(db, projectId, lead.id, { remove: tags });
  if (!left) throw new AppError(ErrorCode.NOT_FOUND, "Lead not found");
  return { success: true, email: lead.email, tags: left };
}

export async function getLeadTags(db: Db, projectId: ProjectId, ref: string) {
  const lead = await findLead(db, projectId, ref);
  return { success: true, email: lead.email, tags: lead.tags ?? [] };
}
