import { Exchanges, makeEnvelope, type ProjectId, RoutingKeys } from "@emailsvc/contracts";
import {
  type Db,
  insertOutboxRows,
  lockDeliveryForRedelivery,
  type RedeliveryCandidate,
  resetDeliveryToPending,
  withTransaction,
} from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";

/** Delivery states that no attempt follows: only these can be sent again. */
const FINISHED_DELIVERY = new Set(["succeeded", "exhausted", "skipped"]);

/**
 * Re-sends a client webhook delivery (e.g. one that exhausted its 5 attempts): it goes back to `pending` with a
 * fresh attempt budget and its original event id on the bus; the webhook-dispatcher re-sends the stored body.
 * One transaction: the delivery goes back to `pending` only together with the event that re-sends it. The
 * caller kicks the outbox relay afterwards.
 */
export async function redeliverWebhook(
  db: Db,
  deliveryId: string,
  /** the project the delivery must belong to (the project's route); null: any (the platform route) */
  projectId: ProjectId | null = null,
): Promise<void> {
  await withTransaction(db, async (c) => {
    const row = await lockDeliveryForRedelivery(c, deliveryId, projectId);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, "Webhook delivery not found");
    // Only when the project has a URL for the mode now (it would otherwise wait for ever), and only a
    // finished delivery (one still being retried would get a second, parallel series of attempts).
    if (!row.has_url)
      throw new AppError(
        ErrorCode.CONFLICT,
        `The project has no ${row.kind === "inbound" ? "inbound_" : ""}${row.is_test ? "webhook_url_dev" : "webhook_url"} to deliver to`,
      );
    if (!FINISHED_DELIVERY.has(row.status))
      throw new AppError(
        ErrorCode.CONFLICT,
        `Webhook delivery is still being delivered (${row.status}); it can be sent again once it is finished`,
      );
    await resetDeliveryToPending(c, deliveryId);
    await insertOutboxRows(c, [
      { exchange: Exchanges.emailEvents, routingKey: row.event, payload: redeliveryEnvelope(row) },
    ]);
  });
}

/** The event the delivery was made for, again, under its original id. */
function redeliveryEnvelope(row: RedeliveryCandidate) {
  const data = (JSON.parse(row.body) as { data?: { activity_id?: string; inbound_id?: string } }).data;
  const about = { projectId: row.project_id, isTest: row.is_test };
  const meta = { projectId: row.project_id };
  // an inbound reply's delivery (kind inbound) is sent again as the email.inbound it was
  const envelope =
    row.kind === "inbound"
      ? makeEnvelope(RoutingKeys.emailInbound, { inboundEmailId: data?.inbound_id ?? "", ...about }, meta)
      : {
          ...makeEnvelope(
            RoutingKeys.emailDelivered,
            { activityId: data?.activity_id ?? "", ...about },
            meta,
          ),
          type: row.event,
        };
  return { ...envelope, id: row.event_id };
}
