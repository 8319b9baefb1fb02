import type { Db } from "@emailsvc/db";
import { findSuppressed } from "../repos/suppression.repo";

export interface SuppressionOutcome {
  to: string[];
  cc: string[];
  bcc: string[];
  /** Suppressed `to` recipients in request order, with the reason. */
  skipped: { recipient: string; reason: string }[];
}

/** The 200 body of spec 4.1 for a suppressed recipient (nothing is sent). */
export function skippedBody(first: { recipient: string; reason: string }) {
  return {
    message: `Email not sent: ${first.recipient} is on the suppression list (${first.reason})`,
    skipped: true as const,
    suppression_reason: first.reason,
    recipient: first.recipient,
  };
}

/**
 * Removes the project's suppressed addresses (bounced, complained, unsubscribed) from to/cc/bcc in one query.
 * Suppressed cc/bcc addresses are dropped silently; suppressed `to` recipients are reported back so the caller
 * can answer with the skipped body when nobody is left.
 */
export async function filterSuppressed(
  db: Pick<Db, "pool">,
  projectId: string,
  lists: { to: readonly string[]; cc: readonly string[]; bcc: readonly string[] },
): Promise<SuppressionOutcome> {
  const suppressed = await findSuppressed(db, projectId, [...lists.to, ...lists.cc, ...lists.bcc]);
  if (suppressed.size === 0)
    return { to: [...lists.to], cc: [...lists.cc], bcc: [...lists.bcc], skipped: [] };
  const keep = (a: string) => !suppressed.has(a.toLowerCase());
  return {
    to: lists.to.filter(keep),
    cc: lists.cc.filter(keep),
    bcc: lists.bcc.filter(keep),
    skipped: lists.to
      .filter((a) => !keep(a))
      .map((recipient) => ({ recipient, reason: suppressed.get(recipient.toLowerCase())! })),
  };
}
