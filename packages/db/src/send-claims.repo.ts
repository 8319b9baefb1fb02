import { Exchanges, makeEnvelope, RoutingKeys, type ProjectId } from "@emailsvc/contracts";
import type { Db } from "./create-db";
import { insertOutboxRows, type NewOutboxRow } from "./outbox";

// Claims whose provider answer never came (a send-worker killed mid-call): re-sent or failed (issue 30).

/** The failure reason of a send reported failed because nobody knows whether SES accepted it. */
export const OUTCOME_UNKNOWN = "outcome_unknown";

/**
 * The sources whose caller waited for the answer (the internal POST /send-email, unless scheduled): it was told
 * 504 already, and a copy sent later would contradict that.
 */
const SYNCHRONOUS_SOURCES = ["internal", "platform"];

/**
 * The oldest claims past the window, locked with SKIP LOCKED: any number of reconcilers (one per send-worker
 * replica) take disjoint rows, and a claim being reconciled elsewhere is simply passed over.
 */
const TAKE_SQL = `
SELECT activity_id FROM send_claims
 WHERE claimed_at < now() - make_interval(secs => $1::double precision / 1000)
 ORDER BY claimed_at LIMIT $2
 FOR UPDATE SKIP LOCKED`;

/**
 * For the claims taken: drop their ledger rows, and settle each activity that is still unanswered (`sending`, no
 * provider id, no `sent` event from a Send notification, claimed before the window): back to `queued` to be sent
 * again, or `failed` with reason outcome_unknown when its project chose at-most-once or its caller was already
 * answered (a synchronous send). Each one is recorded as a `send_reconciled` event. An activity that moved on
 * (sent, settled by a notification, released) only loses its stale ledger row.
 */
const SETTLE_SQL = `
WITH taken AS (
  SELECT unnest($1::uuid[]) AS id
), dropped AS (
  DELETE FROM send_claims c USING taken WHERE c.activity_id = taken.id
), a AS (
  SELECT t.id, t.claimed_at,
         CASE WHEN p.on_send_unknown = 'fail' OR (m.source = ANY($3::text[]) AND t.scheduled_send_id IS NULL)
              THEN 'failed' ELSE 'queued' END AS next
    FROM activities t JOIN taken ON taken.id = t.id
    LEFT JOIN projects p ON p.id = t.project_id
    LEFT JOIN email_messages m ON m.id = t.email_message_id
   WHERE t.status = 'sending' AND t.provider_message_id IS NULL
     AND t.claimed_at < now() - make_interval(secs => $2::double precision / 1000)
     AND NOT EXISTS (SELECT 1 FROM email_events e WHERE e.activity_id = t.id AND e.type = 'sent')
   ORDER BY t.id
   FOR UPDATE OF t
), upd AS (
  UPDATE activities t SET
    status = a.next,
    claimed_at = CASE WHEN a.next = 'queued' THEN NULL ELSE t.claimed_at END,
    failed_at = CASE WHEN a.next = 'failed' THEN now() ELSE t.failed_at END,
    failure_reason = CASE WHEN a.next = 'failed' THEN $4 ELSE t.failure_reason END,
    updated_at = now()
    FROM a WHERE t.id = a.id
  RETURNING t.id, t.project_id, t.is_test, t.status, a.claimed_at
), ev AS (
  INSERT INTO email_events (id, project_id, activity_id, type, is_test, occurred_at, payload)
  SELECT gen_random_uuid(), project_id, id, 'send_reconciled', is_test, now(),
         jsonb_build_object('action', CASE WHEN status = 'failed' THEN 'failed' ELSE 'resent' END,
                            'claimedAt', claimed_at)
    FROM upd
)
SELECT id, project_id, is_test, status FROM upd ORDER BY id`;

export interface ReconciledSend {
  activityId: string;
  projectId: ProjectId | null;
  isTest: boolean;
  action: "resent" | "failed";
}

/**
 * One pass over at most `limit` claims older than `afterMs`, in one transaction: the activities settled, their
 * events, and their outbox rows (`email.send-requested` per project for those to send again, `email.failed`
 * with reason outcome_unknown for the others) commit together, so a reconciler that dies mid-pass leaves the
 * claims to the next pass. `scanned` counts the claims taken (stale ones included), so the caller knows whether
 * to run another pass at once.
 */
export async function reconcileClaims(
  db: Db,
  opts: {
    afterMs: number;
    limit: number;
    /** The send requests of activities to send again: the send model's (`sendRequests` of @emailsvc/sending). */
    resend: (projectId: ProjectId | null, activityIds: string[]) => NewOutboxRow[];
  },
): Promise<{ scanned: number; settled: ReconciledSend[] }> {
  const client = await db.pool.connect();
  try {
    await client.query("BEGIN");
    const taken = await client.query<{ activity_id: string }>(TAKE_SQL, [opts.afterMs, opts.limit]);
    if (!taken.rows.length) {
      await client.query("COMMIT");
      return { scanned: 0, settled: [] };
    }
    const res = await client.query<{
      id: string;
      project_id: ProjectId | null;
      is_test: boolean;
      status: string;
    }>(SETTLE_SQL, [
      taken.rows.map((r) => r.activity_id),
      opts.afterMs,
      SYNCHRONOUS_SOURCES,
      OUTCOME_UNKNOWN,
    ]);
    const settled: ReconciledSend[] = res.rows.map((r) => ({
      activityId: r.id,
      projectId: r.project_id,
      isTest: r.is_test,
      action: r.status === "failed" ? "failed" : "resent",
    }));
    await insertOutboxRows(client, outboxRows(settled, opts.resend));
    await client.query("COMMIT");
    return { scanned: taken.rows.length, settled };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Re-sends go through the ordinary send path (one email.send-requested per project); failures say why. */
function outboxRows(
  settled: readonly ReconciledSend[],
  resendRows: (projectId: ProjectId | null, activityIds: string[]) => NewOutboxRow[],
): NewOutboxRow[] {
  const rows: NewOutboxRow[] = [];
  const resend = new Map<ProjectId | null, string[]>();
  const occurredAt = new Date().toISOString();
  for (const s of settled) {
    if (s.action === "resent") {
      resend.set(s.projectId, [...(resend.get(s.projectId) ?? []), s.activityId]);
    } else if (s.projectId) {
      const payload = {
        activityId: s.activityId,
        projectId: s.projectId,
        isTest: s.isTest,
        reason: OUTCOME_UNKNOWN,
        occurredAt,
      };
      rows.push({
        exchange: Exchanges.emailEvents,
        routingKey: RoutingKeys.emailFailed,
        payload: makeEnvelope(RoutingKeys.emailFailed, payload, { projectId: s.projectId }),
      });
    }
  }
  for (const [projectId, activityIds] of resend) rows.push(...resendRows(projectId, activityIds));
  return rows;
}
