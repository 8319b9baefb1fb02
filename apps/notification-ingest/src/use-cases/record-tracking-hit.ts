import { Exchanges, makeEnvelope } from "@emailsvc/contracts";
import { insertOutboxRows, withTransaction, type Db } from "@emailsvc/db";

/**
 * An open or click: one event record per hit, `opened_first_at` / `clicked_first_at` written only by the first
 * hit (the `IS NULL` condition makes concurrent first hits safe and repeat hits touch no activity row), and the
 * client event. A click on an email with no recorded open also counts as its first open (the image may have
 * been blocked). Unknown activity ids record nothing.
 */
export async function recordTrackingHit(
  db: Db,
  activityId: string,
  kind: "open" | "click",
  url?: string,
): Promise<boolean> {
  return withTransaction(db.pool, async (client) => {
    const a = await client.query<{
      project_id: string | null;
      is_test: boolean;
      opened_first_at: Date | null;
    }>("SELECT project_id, is_test, opened_first_at FROM activities WHERE id = $1", [activityId]);
    const row = a.rows[0];
    if (!row) return false;
    const now = new Date();
    const kinds: ("open" | "click")[] = kind === "click" && !row.opened_first_at ? ["open", "click"] : [kind];
    const outbox = [];
    for (const k of kinds) {
      const ev = await client.query<{ id: string }>(
        `INSERT INTO email_events (id, project_id, activity_id, type, is_test, occurred_at, payload)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6) RETURNING id`,
        [
          row.project_id,
          activityId,
          k,
          row.is_test,
          now,
          k === "click" && url ? JSON.stringify({ url }) : null,
        ],
      );
      const col = k === "open" ? "opened_first_at" : "clicked_first_at";
      const to = k === "open" ? "opened" : "clicked";
      const from = k === "open" ? ["sent", "delivered"] : ["sent", "delivered", "opened"];
      await client.query(
        `UPDATE activities SET ${col} = $2, status = CASE WHEN status = ANY($3::text[]) THEN $4 ELSE status END, updated_at = now()
          WHERE id = $1 AND ${col} IS NULL`,
        [activityId, now, from, to],
      );
      if (row.project_id) {
        const type = k === "open" ? "email.opened" : "email.clicked";
        const envelope = makeEnvelope(
          type,
          {
            activityId,
            projectId: row.project_id,
            isTest: row.is_test,
            occurredAt: now.toISOString(),
            eventRecordId: ev.rows[0]!.id,
            ...(k === "click" && url ? { details: { url } } : {}),
          },
          { projectId: row.project_id },
        );
        outbox.push({ exchange: Exchanges.emailEvents, routingKey: type, payload: envelope });
      }
    }
    await insertOutboxRows(client, outbox);
    return true;
  });
}
