import type { ProjectId } from "@emailsvc/contracts";
import type { EventSource } from "@emailsvc/db";
import { renderDoubleBraces, renderTemplate } from "@emailsvc/content";

export interface EventPayload {
  activityId: string;
  projectId: ProjectId;
  isTest?: boolean;
  occurredAt?: string;
  providerMessageId?: string;
  details?: Record<string, unknown>;
  reason?: string;
}

/** The activity, message and project facts a client webhook is built from (one row, see deliver-webhook). */

export interface BuiltEvent {
  projectId: ProjectId;
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
export function buildEventBody(event: string, r: EventSource, p: EventPayload): BuiltEvent {
  const isTest = r.is_test === true;
  // The subject the recipient got (a batch's message holds `Hi {{name}}`; single sends are stored rendered).
  let subject = r.subject;
  if (r.data) {
    try {
      subject = (r.from_template ? renderTemplate : renderDoubleBraces)(subject, r.data, {
        html: false,
      }).text;
    } catch {
      // past the rendering limits the worker never sent it either; the stored subject is what there is
    }
  }
  const body = {
    event,
    is_test: isTest,
    created_at: new Date().toISOString(),
    data: {
      activity_id: r.id,
      email_id: r.email_id,
      message_id: r.provider_message_id ?? p.providerMessageId ?? null,
      project_id: r.project_id,
      recipient: r.recipient,
      from: r.from_email,
      subject,
      campaign_id: r.campaign_id,
      batch_id: r.batch_id,
      email_type: r.email_type,
      timestamp: p.occurredAt ?? new Date().toISOString(),
      ...(p.details ?? {}),
      ...(p.reason ? { reason: p.reason } : {}),
    },
  };
  const url = (isTest ? r.webhook_url_dev : r.webhook_url) || null;
  return { projectId: r.project_id, isTest, url, body: JSON.stringify(body) };
}
