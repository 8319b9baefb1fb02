import type { LeadTimelineQuery, ProjectId } from "@emailsvc/contracts";
import {
  type Db,
  listActivitiesToRecipient,
  listLeadEventsBefore,
  listLeadOrders,
  listRepliesToRecipient,
  type TimelinePosition,
} from "@emailsvc/db";
import { decodeCursor, encodeCursor } from "../listing/keyset-cursor";
import { findLead } from "./lead-row";

/** One item of a lead's timeline: what happened, when, and the ids the dashboard links to. */
export type TimelineItem =
  | { kind: "event"; id: string; at: string; name: string; properties: Record<string, unknown> }
  | {
      kind: "email";
      id: string;
      at: string;
      subject: string;
      status: string;
      email_type: string;
      campaign_id: string | null;
      is_test: boolean;
    }
  | {
      kind: "reply";
      id: string;
      at: string;
      thread_id: string;
      activity_id: string | null;
      from_email: string;
      subject: string;
      reply_text: string;
      reply_kind: string;
    }
  | {
      kind: "order";
      id: string;
      at: string;
      order_id: string;
      shop_domain: string;
      total_minor: string;
      currency: string;
      cancelled: boolean;
      test: boolean;
      attributed_campaign_id: string | null;
    };

export type LeadTimelineDeps = { db: Db };

const newerFirst = (a: { at: Date; id: string }, b: { at: Date; id: string }) =>
  b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * A lead's timeline, newest first: its custom events, the emails sent to its address (with their status), the
 * replies to them and its shop orders, each read from its own aggregate's repository. Keyset-paged on (time, id):
 * each source gives its `limit` newest before the cursor, the merge keeps the `limit` newest of them all, and the
 * next page starts after the last one kept, so nothing is skipped or shown twice however the sources interleave.
 */
export async function getLeadTimeline(
  deps: LeadTimelineDeps,
  projectId: ProjectId,
  ref: string,
  q: LeadTimelineQuery,
) {
  const { db } = deps;
  const lead = await findLead(db, projectId, ref);
  const before: TimelinePosition | undefined = q.cursor
    ? (({ createdAt, id }) => ({ at: createdAt, id }))(decodeCursor(q.cursor))
    : undefined;
  const n = q.limit + 1;
  const [events, emails, replies, orders] = await Promise.all([
    listLeadEventsBefore(db, projectId, lead.id, before, n),
    listActivitiesToRecipient(db, projectId, lead.email, before, n),
    listRepliesToRecipient(db, projectId, lead.email, before, n),
    listLeadOrders(db, projectId, lead.id, before, n),
  ]);
  const merged: { at: Date; id: string; item: TimelineItem }[] = [
    ...events.map((e) => ({
      at: e.occurred_at,
      id: e.id,
      item: {
        kind: "event" as const,
        id: e.id,
        at: e.occurred_at.toISOString(),
        name: e.name,
        properties: e.properties,
      },
    })),
    ...emails.map((a) => ({
      at: a.created_at,
      id: a.id,
      item: {
        kind: "email" as const,
        id: a.id,
        at: a.created_at.toISOString(),
        subject: a.subject,
        status: a.status,
        email_type: a.email_type,
        campaign_id: a.campaign_id,
        is_test: a.is_test,
      },
    })),
    ...replies.map((m) => ({
      at: m.received_at,
      id: m.id,
      item: {
        kind: "reply" as const,
        id: m.id,
        at: m.received_at.toISOString(),
        thread_id: m.thread_id,
        activity_id: m.activity_id,
        from_email: m.from_email,
        subject: m.subject,
        reply_text: m.reply_text,
        reply_kind: m.kind,
      },
    })),
    ...orders.map((o) => ({
      at: o.placed_at,
      id: o.id,
      item: {
        kind: "order" as const,
        id: o.id,
        at: o.placed_at.toISOString(),
        order_id: o.order_id,
        shop_domain: o.shop_domain,
        total_minor: o.total_minor,
        currency: o.currency,
        cancelled: o.cancelled,
        test: o.test,
        attributed_campaign_id: o.attributed_campaign_id,
      },
    })),
  ].sort(newerFirst);
  const page = merged.slice(0, q.limit);
  const last = page.at(-1);
  return {
    success: true,
    items: page.map((p) => p.item),
    next_cursor: merged.length > q.limit && last ? encodeCursor(last.at, last.id) : null,
  };
}
