import { quotaUpsert } from "./quota";

/**
 * The gates every accept statement (single send, batch) opens with, and the final check that undoes the whole
 * statement when one of them refused: the idempotency row (first writer wins, or a key older than 24 h is
 * taken over), the monthly live quota, and the project's total-sent counter. Written once here so the two
 * statements cannot drift apart; each passes the placeholders (with casts) its own parameter list uses.
 */
export interface GatePlaceholders {
  project: string;
  key: string;
  fingerprint: string;
  status: string;
  body: string;
  messageId: string;
  period: string;
  /** emails this accept adds to the quota and to total_sent */
  count: string;
  /** whether it counts at all (live keys only) */
  counts: string;
  limit: string;
  /** Optional SQL condition checked before every other gate: false undoes the statement (ABORT_SEND_GATES). */
  sendGate?: string;
}

/** Raised by the final SELECT (svc_abort, SQLSTATE P0001): the whole statement is undone. */
export const ABORT_IDEMPOTENCY = "idempotency_conflict";
export const ABORT_QUOTA = "quota_exceeded";
export const ABORT_SEND_GATES = "send_gates_refused";

/**
 * How an idempotency row is written, by the single accept and the batched one alike: the first writer wins, or
 * one older than 24 h is taken over; a key taken (and not expired) returns no row.
 */
export const IDEMPOTENCY_UPSERT = `ON CONFLICT (project_id, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
        response_body = EXCLUDED.response_body, email_message_id = EXCLUDED.email_message_id, created_at = now()
    WHERE idempotency_keys.created_at < now() - interval '24 hours'
  RETURNING 1`;

/** `idem`, `usage` and `total`, to open a WITH list. */
export function gateCtes(p: GatePlaceholders): string {
  return `idem AS (
  INSERT INTO idempotency_keys (project_id, key, fingerprint, response_status, response_body, email_message_id)
  SELECT ${p.project}, ${p.key}, ${p.fingerprint}, ${p.status}, ${p.body}, ${p.messageId} WHERE ${p.key} IS NOT NULL
  ${IDEMPOTENCY_UPSERT}
), usage AS (
  INSERT INTO project_usage AS u (project_id, period, live_sent) SELECT ${p.project}, ${p.period}, ${p.count} WHERE ${p.counts}
  ${quotaUpsert(p.limit)}
), total AS (
  UPDATE projects SET total_sent = total_sent + ${p.count} WHERE id = ${p.project} AND ${p.counts} RETURNING 1
)`;
}

/** The statement's final SELECT: aborts when a gate refused, else `ok`. */
export function gateCheck(p: GatePlaceholders): string {
  const sendGate = p.sendGate ? `\n  WHEN NOT (${p.sendGate}) THEN svc_abort('${ABORT_SEND_GATES}')` : "";
  return `SELECT CASE${sendGate}
  WHEN ${p.key} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM idem) THEN svc_abort('${ABORT_IDEMPOTENCY}')
  WHEN ${p.counts} AND NOT EXISTS (SELECT 1 FROM usage) THEN svc_abort('${ABORT_QUOTA}')
  ELSE true END AS ok`;
}
