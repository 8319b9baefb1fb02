import type { ProjectId } from "@emailsvc/contracts";
import { type Db, type LeadRow, segmentsOfLead } from "@emailsvc/db";
import { findLead, leadView } from "./lead-row";

/** GET /v1/leads/:id: the lead with the segments it is in. */
export async function getLead(db: Db, projectId: ProjectId, ref: string) {
  const row: LeadRow = await findLead(db, projectId, ref);
  return { ...leadView(row), segments: await segmentsOfLead(db, projectId, row.id) };
}
