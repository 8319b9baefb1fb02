import { type Db, mergeLeadAttributesRow } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { LEAD_LIMITS, type ProjectId } from "@emailsvc/contracts";
import { findLead } from "./lead-row";

/**
 * POST /v1/leads/:email/attributes: merged into the lead's in one statement (concurrent merges of different names
 * both land); a name set to null is removed. The merged whole must stay within the limits, else 400 and no change.
 */
export async function mergeLeadAttributes(
  db: Db,
  projectId: ProjectId,
  ref: string,
  patch: Record<string, unknown>,
) {
  const lead = await findLead(db, projectId, ref);
  const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null));
  const del = Object.keys(patch).filter((k) => patch[k] === null);
  const attributes = await mergeLeadAttributesRow(db, projectId, lead.id, set, del);
  if (!attributes)
    throw new AppError(
      ErrorCode.VALIDATION,
      `attributes: a lead holds at most ${LEAD_LIMITS.attributeKeys} attributes and ${LEAD_LIMITS.attributesBytes} bytes of them`,
    );
  return { success: true, email: lead.email, attributes };
}

export async function getLeadAttributes(db: Db, projectId: ProjectId, ref: string) {
  const lead = await findLead(db, projectId, ref);
  return { success: true, email: lead.email, attributes: lead.attributes };
}
