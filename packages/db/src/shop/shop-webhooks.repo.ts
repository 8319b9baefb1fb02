import type { Db } from "../create-db";
import type { NewOutboxRow } from "../outbox";
import { timeOrderedUuid } from "../time-ordered-uuid";

export interface StoredShopWebhook {
  id: string;
  project_id: string;
  shop_id: string;
  webhook_id: string;
  topic: string;
  payload: unknown;
  received_at: Date;
  processed_at: Date | null;
}

/**
 * Stores one delivery and the outbox row that queues it, in one statement (one commit): the receiver answers 200
 * only after both are durable. A webhook id the shop already delivered stores nothing and answers `duplicate`:
 * concurrent deliveries of one id wait on the unique index, and exactly one of them inserts.
 */
export async function recordShopWebhook(
  db: Db,
  row: { id: string; projectId: string; shopId: string; webhookId: string; topic: string; payload: unknown },
  outbox: NewOutboxRow,
): Promise<"stored" | "duplicate"> {
  const { rows } = await db.pool.query<{ n: number }>(
    `WITH ins AS (
       INSERT INTO shop_webhook_events (id, project_id, shop_id, webhook_id, topic, payload)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb)
       ON CONFLICT (shop_id, webhook_id) DO NOTHING RETURNING id
     ), ob AS (
       INSERT INTO outbox_messages (id, exchange, routing_key, payload)
       SELECT $7, $8, $9, $10::jsonb FROM ins
     )
     SELECT count(*)::int AS n FROM ins`,
    [
      row.id,
      row.projectId,
      row.shopId,
      row.webhookId,
      row.topic,
      JSON.stringify(row.payload),
      timeOrderedUuid(),
      outbox.exchange,
      outbox.routingKey,
      JSON.stringify(outbox.payload),
    ],
  );
  return rows[0]!.n === 1 ? "stored" : "duplicate";
}

export async function findShopWebhook(
  db: Db,
  projectId: string,
  id: string,
): Promise<StoredShopWebhook | undefined> {
  return (
    await db.pool.query<StoredShopWebhook>(
      `SELECT id, project_id, shop_id, webhook_id, topic, payload, received_at, processed_at
         FROM shop_webhook_events WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    )
  ).rows[0];
}
