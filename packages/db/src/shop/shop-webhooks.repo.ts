import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";
import { type NewOutboxRow, OUTBOX_INSERT } from "../outbox";
import { timeOrderedUuids } from "../time-ordered-uuid";

export interface StoredShopWebhook {
  id: string;
  project_id: ProjectId;
  shop_id: string;
  webhook_id: string;
  topic: string;
  payload: unknown;
  signed: boolean;
  received_at: Date;
  processed_at: Date | null;
}

export interface NewShopWebhook {
  id: string;
  projectId: ProjectId;
  shopId: string;
  webhookId: string;
  topic: string;
  payload: unknown;
  /** its HMAC was checked against the shop's secret (false: the shop has none, accepted unsigned) */
  signed: boolean;
  /** the outbox row that queues it, written in the same statement */
  outbox: NewOutboxRow;
}

/**
 * Stores deliveries and the outbox rows that queue them, in one statement (one commit): the receiver answers 200
 * only after both are durable. One outbox row per project and topic of the batch names all its stored deliveries
 * (the first row's envelope, its payload replaced by `webhookEventIds` in arrival order): the relay, the broker and
 * the consumer then handle one message per group commit, not one per webhook. A webhook id the shop already
 * delivered (before, or earlier in the same batch) stores nothing and answers `duplicate`: concurrent deliveries of one id wait on the unique index, and exactly one
 * of them inserts. Rows go in (shop, webhook id) order, so two batches that share ids wait on each other in one
 * order and cannot deadlock. The raw body is stored as the client sent it (`payloadJson`), not re-serialised.
 */
export async function recordShopWebhooks(
  db: Pick<Db, "pool">,
  rows: (Omit<NewShopWebhook, "payload"> & { payloadJson: string })[],
): Promise<("stored" | "duplicate")[]> {
  const outboxIds = timeOrderedUuids(rows.length);
  // One JSON document for the batch, each body spliced in as received (it is JSON the receiver just parsed):
  // PostgreSQL parses every body once, and no text is escaped into an array literal and unescaped again, which
  // cost more than the insert for bodies of a few kilobytes.
  const input = `[${rows
    .map(
      (r, i) =>
        `{"n":${i},"id":"${r.id}","project_id":"${r.projectId}","shop_id":"${r.shopId}","webhook_id":${JSON.stringify(
          r.webhookId,
        )},"topic":${JSON.stringify(r.topic)},"signed":${r.signed},"payload":${r.payloadJson},"outbox_id":"${outboxIds[i]}",` +
        `"exchange":${JSON.stringify(r.outbox.exchange)},"routing_key":${JSON.stringify(
          r.outbox.routingKey,
        )},"envelope":${JSON.stringify(r.outbox.payload)}}`,
    )
    .join(",")}]`;
  const { rows: stored } = await db.pool.query<{ id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t(id uuid, project_id uuid, shop_id uuid, webhook_id text, topic text, signed bool, payload jsonb,
              outbox_id uuid, exchange text, routing_key text, envelope jsonb, n int)
     ), ins AS (
       INSERT INTO shop_webhook_events (id, project_id, shop_id, webhook_id, topic, signed, payload)
       SELECT id, project_id, shop_id, webhook_id, topic, signed, payload FROM input ORDER BY shop_id, webhook_id
       ON CONFLICT (shop_id, webhook_id) DO NOTHING RETURNING id
     ), ob AS (
       ${OUTBOX_INSERT}
       SELECT (array_agg(i.outbox_id ORDER BY i.n))[1], i.exchange, i.routing_key,
              jsonb_set((array_agg(i.envelope ORDER BY i.n))[1], '{payload}',
                        jsonb_build_object('webhookEventIds', jsonb_agg(i.id ORDER BY i.n)))
         FROM input i JOIN ins ON ins.id = i.id
        GROUP BY i.project_id, i.exchange, i.routing_key
     )
     SELECT id FROM ins`,
    [input],
  );
  const ids = new Set(stored.map((r) => r.id));
  return rows.map((r) => (ids.has(r.id) ? "stored" : "duplicate"));
}

/** A stored delivery with what processing it needs from its shop's connection (null: the shop is gone). */
export interface ShopWebhookToProcess extends StoredShopWebhook {
  shop_domain: string | null;
  click_window_hours: number | null;
  open_window_hours: number | null;
  abandoned_steps_minutes: number[] | null;
  allow_unsigned_abandoned_cart: boolean | null;
}

/** The deliveries a batch of messages names, each with its shop's settings, in one round trip. */
export async function findShopWebhooks(
  db: Pick<Db, "pool">,
  refs: { projectId: ProjectId; id: string }[],
): Promise<Map<string, ShopWebhookToProcess>> {
  const { rows } = await db.pool.query<ShopWebhookToProcess>(
    `SELECT e.id, e.project_id, e.shop_id, e.webhook_id, e.topic, e.payload, e.signed, e.received_at, e.processed_at,
            sc.shop_domain, sc.click_window_hours, sc.open_window_hours, sc.abandoned_steps_minutes,
            sc.allow_unsigned_abandoned_cart
       FROM unnest($1::uuid[], $2::uuid[]) AS t(project_id, id)
       JOIN shop_webhook_events e ON e.project_id = t.project_id AND e.id = t.id
       LEFT JOIN shop_connections sc ON sc.project_id = e.project_id AND sc.id = e.shop_id`,
    [refs.map((r) => r.projectId), refs.map((r) => r.id)],
  );
  return new Map(rows.map((r) => [r.id, r]));
}
