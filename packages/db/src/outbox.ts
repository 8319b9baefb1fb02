import type { Pool, PoolClient } from "pg";
import type { Prisma } from "./generated/prisma/client";
import type { Db } from "./create-db";
import { timeOrderedUuid } from "./time-ordered-uuid";

/** Same shapes as @emailsvc/messaging's OutboxStore (structurally compatible; db does not import messaging). */
export interface OutboxRecord {
  id: string;
  exchange: string;
  routingKey: string;
  payload: unknown;
  headers?: Record<string, unknown> | null;
}
export interface OutboxStore {
  relayBatch(limit: number, publish: (rows: OutboxRecord[]) => Promise<void>): Promise<number>;
  /** Published rows: deleted. */
  remove(ids: string[]): Promise<void>;
  /** Rows whose publish failed: the attempt counted and the error kept, due again in 2 s. */
  release(ids: string[], error: unknown): Promise<void>;
}

export interface NewOutboxRow {
  exchange: string;
  routingKey: string;
  /** the message envelope */
  payload: unknown;
  headers?: Record<string, unknown>;
}

/**
 * SQL condition: the project has a webhook URL for the send's mode. A client event (email.sent, .delivered,
 * .opened, …) is written to the outbox only then: the email event record is always stored, but an event no client
 * receives (no `webhook_url`, or a test send without `webhook_url_dev`: spec 5, "not delivered anywhere") would
 * only cross the broker to be dropped by the webhook-dispatcher. Under a burst of opens or notifications that
 * transit was most of the work. `projectId` and `isTest` are SQL expressions of the caller's statement.
 */
export function clientWebhookExistsSql(projectId: string, isTest: string): string {
  return `EXISTS (SELECT 1 FROM projects wp WHERE wp.id = ${projectId}
    AND (CASE WHEN ${isTest} THEN wp.webhook_url_dev ELSE wp.webhook_url END) <> '')`;
}

/**
 * The outbox insert of a one-round-trip statement (a CTE beside the state change it announces), followed by the
 * caller's SELECT of (id, exchange, routing_key, payload): the hot paths build their envelopes in SQL or pass them
 * as parameters, and the table's columns are spelled here only.
 */
export const OUTBOX_INSERT = "INSERT INTO outbox_messages (id, exchange, routing_key, payload)";

/**
 * An outbox row held back until its fifth value (`available_at`): the writer means to do the work itself and hands
 * it to the consumer only if it dies or gives up first. It then either drops the row (`dropHeldOutboxMessage`)
 * or makes it due at once (`releaseHeldOutboxMessage`).
 */
export const OUTBOX_INSERT_HELD =
  "INSERT INTO outbox_messages (id, exchange, routing_key, payload, available_at)";

/** The held row's work was done by its writer: nothing to publish. */
export async function dropHeldOutboxMessage(db: Db, id: string): Promise<void> {
  await db.pool.query("DELETE FROM outbox_messages WHERE id = $1", [id]);
}

/** The held row's writer gave the work up: publish it at the relay's next pass. */
export async function releaseHeldOutboxMessage(db: Db, id: string): Promise<void> {
  await db.pool.query("UPDATE outbox_messages SET available_at = now() WHERE id = $1", [id]);
}

/**
 * How long rows a statement handed to its own service's relay (`OutboxHandoff`) stay out of the poll's reach:
 * the relay publishes them as soon as they are handed over and deletes them, with no lease statement in between.
 * If the process dies first, the poll of any relay publishes them once this hold ends (at-least-once, as a relay
 * that dies mid-publish, whose lease lasts 30 s). A relay does not publish a handed row whose hold has ended: the
 * poll may have taken it.
 */
export const OUTBOX_HANDOFF_HOLD_MS = 10_000;

/** `OUTBOX_INSERT` with the rows' `available_at`: the caller's SELECT gives `outboxAvailableSql(…)` fifth. */
export const OUTBOX_INSERT_AVAILABLE =
  "INSERT INTO outbox_messages (id, exchange, routing_key, payload, available_at)";

/** A row's `available_at`: held for the writer's relay when `held` (an SQL boolean), else due at once. */
export function outboxAvailableSql(held: string): string {
  return `CASE WHEN ${held} THEN now() + interval '${OUTBOX_HANDOFF_HOLD_MS} milliseconds' ELSE now() END`;
}

/**
 * The relay of the writer's own service, when one runs: a hot-path statement asks for it before it writes, writes
 * its outbox rows held (`outboxAvailableSql(true)`) when there is one, and hands it the rows after the commit.
 * Without one (a test, a service stopping) the rows are written due at once and the caller kicks as before.
 */
export type OutboxHandoff = () => ((rows: OutboxRecord[]) => void) | null;

/** Writes outbox rows inside a Prisma interactive transaction (same commit as the state change). */
export async function enqueueOutbox(tx: Prisma.TransactionClient, rows: NewOutboxRow[]): Promise<void> {
  if (!rows.length) return;
  await tx.outboxMessage.createMany({
    data: rows.map((r) => ({
      exchange: r.exchange,
      routingKey: r.routingKey,
      payload: r.payload as Prisma.InputJsonValue,
      ...(r.headers ? { headers: r.headers as Prisma.InputJsonValue } : {}),
    })),
  });
}

/** Writes outbox rows on a raw pg connection inside the caller's transaction (hot paths). */
export async function insertOutboxRows(client: PoolClient | Pool, rows: NewOutboxRow[]): Promise<void> {
  if (!rows.length) return;
  await client.query(
    `INSERT INTO outbox_messages (id, exchange, routing_key, payload, headers)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[])`,
    [
      rows.map(() => timeOrderedUuid()),
      rows.map((r) => r.exchange),
      rows.map((r) => r.routingKey),
      rows.map((r) => JSON.stringify(r.payload)),
      rows.map((r) => (r.headers ? JSON.stringify(r.headers) : null)),
    ],
  );
}

/** How long a relay holds the rows it took before another pass may take them again (it crashed mid-publish). */
const LEASE = "30 seconds";

/**
 * Two round trips per pass and no transaction held open while the broker confirms: one statement leases the
 * oldest due rows (SKIP LOCKED, so replicas take disjoint rows), then, after the publish, one deletes them (or
 * records the error and makes them due again in 2 s). A relay that dies mid-publish leaves its rows leased; they
 * are published again when the lease ends (at-least-once; consumers dedupe on envelope.id).
 *
 * The lease picks its rows in an `ARRAY(…)` sub-select, which PostgreSQL runs once whatever the plan. Written as
 * `id IN (SELECT … FOR UPDATE SKIP LOCKED)`, a plan made while the table was empty (a fresh stack; the statement is
 * prepared, and its generic plan is kept) was a nested-loop semi-join that ran the locking sub-select again for
 * every row of the table: with a 46,000-row backlog (a burst of tracked opens) every relay's lease ran for minutes,
 * all of them waiting on PostgreSQL's lock manager, and the events reached their webhooks minutes late.
 *
 * Deleting instead of marking published keeps the table as small as the backlog: the lease is an index scan in
 * `created_at` order over live rows only (the lease's own update touches no indexed column, so it stays a HOT
 * update), where a growing history of published rows made every pass walk past all of them.
 */
export function createOutboxStore(pool: Pool): OutboxStore {
  const remove = async (ids: string[]): Promise<void> => {
    await pool.query("DELETE FROM outbox_messages WHERE id = ANY($1::uuid[])", [ids]);
  };
  const release = async (ids: string[], error: unknown): Promise<void> => {
    await pool.query(
      `UPDATE outbox_messages SET attempts = attempts + 1, last_error = $2, available_at = now() + interval '2 seconds'
        WHERE id = ANY($1::uuid[])`,
      [ids, error instanceof Error ? error.message.slice(0, 1000) : String(error)],
    );
  };
  return {
    remove,
    release,
    async relayBatch(limit, publish) {
      const res = await pool.query<{
        id: string;
        exchange: string;
        routing_key: string;
        payload: unknown;
        headers: Record<string, unknown> | null;
        created_at: Date;
      }>(
        `UPDATE outbox_messages SET available_at = now() + interval '${LEASE}'
          WHERE id = ANY(ARRAY(SELECT id FROM outbox_messages
                                WHERE available_at <= now()
                                ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED))
          RETURNING id, exchange, routing_key, payload, headers, created_at`,
        [limit],
      );
      if (res.rows.length === 0) return 0;
      const rows: OutboxRecord[] = res.rows
        .sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
        .map((r) => ({
          id: r.id,
          exchange: r.exchange,
          routingKey: r.routing_key,
          payload: r.payload,
          headers: r.headers,
        }));
      const ids = rows.map((r) => r.id);
      try {
        await publish(rows);
      } catch (err) {
        await release(ids, err);
        throw err;
      }
      await remove(ids);
      return rows.length;
    },
  };
}
