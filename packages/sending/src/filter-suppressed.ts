import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { checkSenderAndSuppressions, senderNotVerified } from "./sender-check";

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

type Lists = { to: readonly string[]; cc: readonly string[]; bcc: readonly string[] };

/** Splits to/cc/bcc by a project's suppressions (lowercased address → reason). */
export function applySuppressions(lists: Lists, suppressed: Map<string, string>): SuppressionOutcome {
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

/**
 * The two checks before a send is accepted, in one round trip: the sender must be verified (else the 403 of
 * spec 4.4), and the project's suppressed addresses (bounced, complained, unsubscribed) are removed from
 * to/cc/bcc. Suppressed cc/bcc addresses are dropped silently; suppressed `to` recipients are reported back so
 * the caller can answer with the skipped body when nobody is left.
 */
export async function checkSenderAndFilter(
  db: Pick<Db, "pool">,
  projectId: ProjectId,
  sender: string,
  lists: Lists,
): Promise<SuppressionOutcome> {
  const { verification, suppressed } = await checkSenderAndSuppressions(db, projectId, sender, [
    ...lists.to,
    ...lists.cc,
    ...lists.bcc,
  ]);
  if (!verification.verified) throw senderNotVerified(sender);
  return applySuppressions(lists, suppressed);
}
