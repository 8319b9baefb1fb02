import { SEND_REQUESTED_MAX_IDS } from "@emailsvc/contracts";
import {
  cancelSuppressedScheduled,
  cancelUnverifiedScheduled,
  claimDueScheduledSends,
  insertOutboxRows,
  markScheduledSending,
  type Db,
  type NewOutboxRow,
  queueScheduledActivities,
  withTransaction,
} from "@emailsvc/db";
import { sendRequests } from "@emailsvc/sending";

export { nextDueAt, settleHandedOffSends } from "@emailsvc/db";

export interface DispatchOptions {
  db: Db;
  /** Replica id written to claimed rows (logs, debugging). */
  claimedBy: string;
  /** Scheduled sends claimed per transaction. */
  limit?: number;
  /** Activity ids per email.send-requested message (a scheduled batch can hold 12,500); tests lower it. */
  idsPerMessage?: number;
}

export interface DispatchResult {
  scheduledSends: number;
  activities: number;
  /** Recipients suppressed since the send was accepted: cancelled at hand-over instead of sent. */
  suppressed?: number;
  /** Activities of sends whose sender is no longer verified: cancelled at hand-over. */
  unverifiedSender?: number;
}

/**
 * Hands due scheduled sends to the send path, exactly once across any number of scheduler replicas:
 * in ONE transaction it claims due rows with FOR UPDATE SKIP LOCKED, cancels what may no longer be sent (sender no
 * longer verified, recipients suppressed since: spec 4.4 and 1.7, given back to the quota), moves the other
 * activities from `scheduled` to `queued`, writes the email.send-requested outbox rows and marks the scheduled
 * sends `sending`. A crash anywhere rolls all of it back and the next tick (of any replica) redoes it.
 */
export async function dispatchDueSends(opts: DispatchOptions): Promise<DispatchResult> {
  return withTransaction(opts.db, async (client) => {
    const claimed = await claimDueScheduledSends(client, opts.limit ?? 100);
    if (!claimed.length) return { scheduledSends: 0, activities: 0 };
    const ids = claimed.map((r) => r.id);
    const unverifiedSender = await cancelUnverifiedScheduled(client, ids);
    const suppressed = await cancelSuppressedScheduled(client, ids);
    const activities = await queueScheduledActivities(client, ids);
    const chunk = opts.idsPerMessage ?? SEND_REQUESTED_MAX_IDS;
    const outbox: NewOutboxRow[] = [];
    for (const row of claimed) {
      const mine = activities.filter((a) => a.scheduled_send_id === row.id).map((a) => a.id);
      outbox.push(
        ...sendRequests("transactional", row.project_id, mine, { idsPerMessage: chunk, causationId: row.id }),
      );
    }
    await insertOutboxRows(client, outbox);
    await markScheduledSending(client, ids, opts.claimedBy);
    return { scheduledSends: ids.length, activities: activities.length, suppressed, unverifiedSender };
  });
}
