import type { ProjectId } from "@emailsvc/contracts";
import { type Db, findLeadRow, type LeadRow } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";

/** The lead record of the API (spec 4.6 leaves it to us: flat, snake_case, times in ISO 8601). */
export function leadView(row: LeadRow) {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    attributes: row.attributes,
    tags: row.tags ?? [],
    /** Marketing consent: unknown (never asked: not opted in), subscribed, unsubscribed. */
    subscription: row.subscription,
    subscription_changed_at: row.subscription_changed_at?.toISOString() ?? null,
    subscription_source: row.subscription_source,
    source: row.source,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
export type LeadView = ReturnType<typeof leadView>;

export const MSG_LEAD_NOT_FOUND = "Lead not found";

/**
 * The lead a path names in the key's project: `/v1/leads/:id` takes the lead's UUID, `/v1/leads/:email/…` its
 * email (anything with an `@`); both routes accept either. Another project's lead is not found, never shown.
 */
export async function findLead(db: Db, projectId: ProjectId, ref: string): Promise<LeadRow> {
  const row = await findLeadRow(db, projectId, ref);
  if (!row) throw new AppError(ErrorCode.NOT_FOUND, MSG_LEAD_NOT_FOUND);
  return row;
}
