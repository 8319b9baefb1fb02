// Real: PostgreSQL (DATABASE_URL) holding the outbox rows, RabbitMQ (own vhost). The store is a small in-test
// implementation of OutboxStore (same contract as @emailsvc/db's): lock rows, publish, mark, in one transaction.
import { randomUUID } from "node:crypto";
import { Exchanges, Queues, RoutingKeys, makeEnvelope, projectIdOf } from "@emailsvc/contracts";
import { Pool } from "pg";
import { startOutboxRelay, type Broker, type OutboxRecord, type OutboxStore } from "../src";
import { makeBroker, sleep, waitFor } from "./helpers";

const TABLE = "messaging_test_outbox";
const projectId = projectIdOf(randomUUID());
let pool: Pool;
let broker: Broker;

function pgStore(db: Pool): OutboxStore {
  return {
    async relayBatch(limit, publish) {
      const client = await db.connect();
      try {
        await client.query("BEGIN");
        const { rows } = await client.query<{
          id: string;
          exchange: string;
          routing_key: string;
          payload: unknown;
          headers: Record<string, unknown> | null;
        }>(
          `SELECT id, exchange, routing_key, payload, headers FROM ${TABLE}
           WHERE published_at IS NULL AND available_at <= now() ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
          [limit],
        );
        if (rows.length === 0) {
          await client.query("COMMIT");
          return 0;
        }
        const records: OutboxRecord[] = rows.map((r) => ({
          id: r.id,
          exchange: r.exchange,
          routingKey: r.routing_key,
          payload: r.payload,
          headers: r.headers,
        }));
        await publish(records);
        await client.query(`UPDATE ${TABLE} SET published_at = now() WHERE id = ANY($1::uuid[])`, [
          rows.map((r) => r.id),
        ]);
        await client.query("COMMIT");
        return rows.length;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async remove(ids) {
      await db.query(`UPDATE ${TABLE} SET published_at = now() WHERE id = ANY($1::uuid[])`, [ids]);
    },
    async release(ids) {
      await db.query(`UPDATE ${TABLE} SET available_at = now() WHERE id = ANY($1::uuid[])`, [ids]);
    },
  };
}

/** What a use case does: the state change and the outbox row commit together; publishing comes later. */
async function commitWithOutbox(db: Pool, webhookEventId: string): Promise<string> {
  const env = makeEnvelope(RoutingKeys.shopOrderCreate, { webhookEventId }, { projectId });
  await db.query(`INSERT INTO ${TABLE} (id, exchange, routing_key, payload) VALUES ($1, $2, $3, $4)`, [
    randomUUID(),
    Exchanges.shopWebhooks,
    RoutingKeys.shopOrderCreate,
    JSON.stringify(env),
  ]);
  return env.id;
}

beforeAll(async () => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  pool = new Pool({ connectionString: url, max: 4 });
  await pool.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await pool.query(`CREATE TABLE ${TABLE} (
    seq bigserial, id uuid PRIMARY KEY, exchange text NOT NULL, routing_key text NOT NULL,
    payload jsonb NOT NULL, headers jsonb, published_at timestamptz,
    available_at timestamptz NOT NULL DEFAULT now())`);
  broker = makeBroker("test-relay");
  await broker.ready();
});

afterAll(async () => {
  await broker?.close();
  await pool?.end();
});

test("a row committed before a crash is published once by a relay started afterwards", async () => {
  // The process that wrote the row dies before publishing: its broker goes away, nothing was sent.
  const doomed = makeBroker("test-crashed-producer");
  await doomed.ready();
  const envelopeId = await commitWithOutbox(pool, "order-1");
  await doomed.close();

  const deliveries: string[] = [];
  const consumer = await broker.consumeRaw(Queues.shopIngestOrderCreate, (e) => void deliveries.push(e.id), {
    prefetch: 10,
  });
  const relay = startOutboxRelay({ store: pgStore(pool), broker, intervalMs: 100, batchSize: 10 });
  await waitFor(() => deliveries.length > 0, 5000, "relayed delivery");
  relay.kick();
  await sleep(400); // further passes must not publish it again
  await relay.stop();
  await consumer.close();

  expect(deliveries).toEqual([envelopeId]);
  const { rows } = await pool.query(`SELECT published_at FROM ${TABLE} WHERE payload->>'id' = $1`, [
    envelopeId,
  ]);
  expect(rows[0].published_at).toBeInstanceOf(Date);
});

test("kick() publishes at once, and full batches are drained back to back", async () => {
  const deliveries: string[] = [];
  const consumer = await broker.consumeRaw(Queues.shopIngestOrderCreate, (e) => void deliveries.push(e.id), {
    prefetch: 50,
  });
  // Long interval: only kick() and the full-batch loop can make this fast.
  const relay = startOutboxRelay({ store: pgStore(pool), broker, intervalMs: 60_000, batchSize: 10 });
  await sleep(100); // first pass finds nothing and sleeps
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) ids.push(await commitWithOutbox(pool, `order-batch-${i}`));
  const started = Date.now();
  relay.kick();
  await waitFor(() => deliveries.length >= 25, 5000, "25 deliveries");
  expect(Date.now() - started).toBeLessThan(5000);
  await sleep(200);
  await relay.stop();
  await consumer.close();
  expect(deliveries.sort()).toEqual(ids.sort());
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${TABLE} WHERE published_at IS NULL`);
  expect(rows[0].n).toBe(0);
});

test("a broker failure leaves rows unpublished for the next pass", async () => {
  const calls: number[] = [];
  const failing = {
    publishMany: async (reqs: readonly unknown[]) => {
      calls.push(reqs.length);
      throw new Error("broker down");
    },
  };
  const id = await commitWithOutbox(pool, "order-fail");
  const relay = startOutboxRelay({ store: pgStore(pool), broker: failing, intervalMs: 50, batchSize: 10 });
  await waitFor(() => calls.length >= 2, 3000, "two failed passes");
  await relay.stop();
  const { rows } = await pool.query(`SELECT published_at FROM ${TABLE} WHERE payload->>'id' = $1`, [id]);
  expect(rows[0].published_at).toBeNull();
  // Leave no unpublished row behind for other tests.
  await pool.query(`UPDATE ${TABLE} SET published_at = now() WHERE published_at IS NULL`);
});

/** What a hot path does: the row committed held for its own relay (out of the poll's reach), then handed over. */
async function commitHeld(db: Pool, webhookEventId: string): Promise<OutboxRecord> {
  const env = makeEnvelope(RoutingKeys.shopOrderCreate, { webhookEventId }, { projectId });
  const row = {
    id: randomUUID(),
    exchange: Exchanges.shopWebhooks,
    routingKey: RoutingKeys.shopOrderCreate,
    payload: env,
  };
  await db.query(
    `INSERT INTO ${TABLE} (id, exchange, routing_key, payload, available_at)
     VALUES ($1, $2, $3, $4, now() + interval '10 seconds')`,
    [row.id, row.exchange, row.routingKey, JSON.stringify(env)],
  );
  return row;
}

test("handed-over rows are published at once without a poll pass, and removed", async () => {
  const deliveries: string[] = [];
  const consumer = await broker.consumeRaw(Queues.shopIngestOrderCreate, (e) => void deliveries.push(e.id), {
    prefetch: 50,
  });
  const store = pgStore(pool);
  const polls = jest.spyOn(store, "relayBatch");
  const relay = startOutboxRelay({ store, broker, intervalMs: 60_000, batchSize: 10, handoffHoldMs: 10_000 });
  await sleep(100); // the first pass finds nothing and sleeps for a minute
  const rows: OutboxRecord[] = [];
  for (let i = 0; i < 25; i++) rows.push(await commitHeld(pool, `order-handed-${i}`));
  relay.handoff(rows.slice(0, 5));
  relay.handoff(rows.slice(5));
  await waitFor(() => deliveries.length >= 25, 5000, "25 handed deliveries");
  await sleep(200);
  await relay.stop();
  await consumer.close();
  expect(polls).toHaveBeenCalledTimes(1);
  expect(deliveries.sort()).toEqual(rows.map((r) => (r.payload as { id: string }).id).sort());
  const { rows: left } = await pool.query(
    `SELECT count(*)::int AS n FROM ${TABLE} WHERE published_at IS NULL AND id = ANY($1::uuid[])`,
    [rows.map((r) => r.id)],
  );
  expect(left[0].n).toBe(0);
});

test("rows handed over one at a time are deleted together, not one statement each", async () => {
  const deliveries: string[] = [];
  const consumer = await broker.consumeRaw(Queues.shopIngestOrderCreate, (e) => void deliveries.push(e.id), {
    prefetch: 50,
  });
  const store = pgStore(pool);
  const removes = jest.spyOn(store, "remove");
  const publishes: number[] = [];
  const counting = {
    publishMany: async (reqs: Parameters<Broker["publishMany"]>[0]) => {
      publishes.push(reqs.length);
      await broker.publishMany(reqs);
    },
  };
  const relay = startOutboxRelay({
    store,
    broker: counting,
    intervalMs: 60_000,
    batchSize: 50,
    handoffHoldMs: 10_000,
  });
  await sleep(100);
  const rows: OutboxRecord[] = [];
  for (let i = 0; i < 10; i++) {
    const row = await commitHeld(pool, `order-one-by-one-${i}`);
    rows.push(row);
    relay.handoff([row]);
    await waitFor(() => deliveries.length > i, 3000, `delivery ${i}`);
  }
  expect(publishes).toEqual(rows.map(() => 1)); // one publish per hand-over
  await sleep(300);
  expect(removes.mock.calls.length).toBeLessThan(rows.length);
  expect(removes.mock.calls.flatMap(([ids]) => ids).sort()).toEqual(rows.map((r) => r.id).sort());
  await relay.stop();
  await consumer.close();
});

test("a handed-over row whose publish fails, or whose hold has ended, is left to the poll", async () => {
  const failing = {
    publishMany: async () => {
      throw new Error("broker down");
    },
  };
  const store = pgStore(pool);
  const released = jest.spyOn(store, "release");
  const relay = startOutboxRelay({
    store,
    broker: failing,
    intervalMs: 60_000,
    batchSize: 10,
    handoffHoldMs: 10_000,
  });
  await sleep(100);
  const row = await commitHeld(pool, "order-handed-fail");
  relay.handoff([row]);
  await waitFor(() => released.mock.calls.length > 0, 3000, "the failed batch released");
  await relay.stop();
  const { rows } = await pool.query(
    `SELECT published_at, available_at <= now() AS due FROM ${TABLE} WHERE id = $1`,
    [row.id],
  );
  expect(rows[0]).toEqual({ published_at: null, due: true });

  // a relay whose hold is shorter than its safety margin, or that was told no hold, publishes nothing handed:
  // the poll owns those rows
  for (const handoffHoldMs of [500, undefined]) {
    const published: unknown[] = [];
    const late = startOutboxRelay({
      store: pgStore(pool),
      broker: { publishMany: async (reqs) => void published.push(...reqs) },
      intervalMs: 60_000,
      batchSize: 10,
      ...(handoffHoldMs === undefined ? {} : { handoffHoldMs }),
    });
    await sleep(100);
    const held = await commitHeld(pool, `order-handed-late-${handoffHoldMs}`);
    late.handoff([held]);
    await sleep(300);
    await late.stop();
    expect(
      published.filter((r) => (r as { headers: Record<string, unknown> }).headers["x-outbox-id"] === held.id),
    ).toEqual([]);
  }
  await pool.query(`UPDATE ${TABLE} SET published_at = now() WHERE published_at IS NULL`);
});
