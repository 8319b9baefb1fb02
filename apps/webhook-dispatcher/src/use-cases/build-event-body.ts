import type { Db } from "@emailsvc/db";

export interface EventPayload {
  activityId: string;
  projectId: string;
  isTest?: boolean;
  occurredAt?: string;
  providerMessageId?: string;
  details?: Record<string, unknown>;
  reason?: string;
}

export interface BuiltEvent {
  projectId: string;
  isTest: boolean;
  url: string | null;
  body: string;
}

/**
 * The client webhook for an email event. Body: `{ event, is_test, created_at, data }` with `data`:
 * activity_id, email_id, message_id (provider), project_id, recipient, from, subject, campaign_id, batch_id,
 * email_type, timestamp (when it happened), and `bounce` / `complaint` / `reject` / `delivery_delay` / `url`
 * details where they apply. Live sends go to webhook_url, test sends to webhook_url_dev (no fallback).
 */
export async function buildEventBody(db: Db, event: string, p: EventPayload): Promise<BuiltEvent | null> {
  const res = await db.pool.query(
    `SELECT a.id, a.project_id, a.is_test, a.recipient, a.provider_message_id, a.campaign_id, a.batch_id, a.email_type,
            m.id AS email_id, m.from_email, m.subject, p.webhook_url, p.webhook_url_dev
       FROM activities a JOIN email_messages m ON m.id = a.email_message_id JOIN projects p ON p.id = a.project_id
      WHERE a.id = $1 AND a.project_id = $2`,
    [p.activityId, p.projectId],
  );
  const r = res.rows[0] as Record<string, string | boolean | null> | undefined;
  if (!r) return null;
  const isTest = r.is_test === true;
  const body = {
    event,
    is_test: isTest,
    created_at: new Date().toISOString(),
    data: {
      activity_id: r.id,
      email_id: r.email_id,
      message_id: (r.provider_message_id as string | null) ?? p.providerMessageId ?? null,
      project_id: r.project_id,
      recipient: r.recipient,
      from: r.from_email,
      subject: r.subject,
      campaign_id: r.campaign_id,
      batch_id: r.batch_id,
      email_type: r.email_type,
      timestamp: p.occurredAt ?? new Date().toISOString(),
      ...(p.details ?? {}),
      ...(p.reason ? { reason: p.reason } : {}),
    },
  };
  const url = ((isTest ? r.webhook_url_dev : r.webhook_url) as string | null) || null;
  return { projectId: r.project_id as string, isTest, url, body: JSON.stringify(body) };
}
