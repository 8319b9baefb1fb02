import type { ProjectId } from "@emailsvc/contracts";
import { type Db, deleteLeadWithEvents } from "@emailsvc/db";
import { findLead } from "./lead-row";

/**
 * DELETE /v1/leads/:id removes the lead's personal data: the lead row (email, names, phone, attributes, tags),
 * its custom events and its segment memberships, in one transaction. Sent-email records (activities) are kept:
 * they are the project's sending log (quota, bounces, complaints) and carry only the address. A suppression
 * (bounce, complaint, unsubscribe) is kept too: it is what stops mail to the address if it is added again.
 */
export async function deleteLead(db: Db, projectId: ProjectId, ref: string) {
  const lead = await findLead(db, projectId, ref);
  const events = await deleteLeadWithEvents(db, projectId, lead.id);
  return { success: true, id: lead.id, deleted: true, deleted_events: events };
}
