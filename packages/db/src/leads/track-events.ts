import { normalizeLeadEmail, type TrackEventInput, type ProjectId } from "@emailsvc/contracts";
import { createBatcher } from "../batcher";
import type { Db } from "../create-db";
import { timeOrderedUuids } from "../time-ordered-uuid";
import { ensureLeads } from "./ensure-leads";
import type { LeadSource } from "./leads.repo";

export interface TrackItem {
  input: TrackEventInput;
  /** Idempotency-Key (per item in bulk) or the item's event_id; null: every call is a new event. */
  key: string | null;
}

export interface TrackedEvent {
  event_id: string;
  recipient_id: string;
  created_lead: boolean;
  /** An event with the same key was already stored: this one was not stored again. */
  duplicate: boolean;
}

/**
 * Every event in one INSERT … SELECT FROM unnest(…). A key already used in the project (an earlier call, or an
 * earlier item of this call) stores nothing: ON CONFLICT DO NOTHING on the unique (project_id, idempotency_key).
 */
const INSERT_SQL = `
INSERT INTO lead_events (id, project_id, lead_id, name, properties, occurred_at, idempotency_key)
SELECT t.id, $1, t.lead_id, t.name, t.properties, t.occurred_at, t.key
  FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::timestamptz[], $7::text[])
    AS t(id, lead_id, name, properties, occurred_at, key)
ON CONFLICT (project_id, idempotency_key) DO NOTHING
RETURNING id`;

/**
 * The common single event, an email that already has a lead, in one round trip: the lead's id and the insert in
 * one statement. Null when the lead is missing or the key was used before: the general path then answers.
 */
const ONE_SQL = `
WITH l AS (SELECT id FROM leads WHERE project_id = $1 AND email_normalized = $2),
ins AS (
  INSERT INTO lead_events (id, project_id, lead_id, name, properties, occurred_at, idempotency_key)
  SELECT $3, $1, l.id, $4, $5, $6, $7 FROM l
  ON CONFLICT (project_id, idempotency_key) DO NOTHING
  RETURNING id, lead_id
)
SELECT id, lead_id FROM ins`;

async function trackKnownLead(db: Db, projectId: ProjectId, item: TrackItem): Promise<TrackedEvent | null> {
  const id = timeOrderedUuids(1)[0]!;
  const { rows } = await db.pool.query<{ id: string; lead_id: string }>(ONE_SQL, [
    projectId,
    normalizeLeadEmail(item.input.email),
    id,
    item.input.event,
    JSON.stringify(item.input.properties ?? {}),
    (item.input.timestamp ?? new Date()).toISOString(),
    item.key,
  ]);
  const row = rows[0];
  return row ? { event_id: row.id, recipient_id: row.lead_id, created_lead: false, duplicate: false } : null;
}

/**
 * POST /v1/events and /v1/events/bulk (and shop webhooks: `checkout_started`, `order_placed`): makes sure each
 * email has a lead (creating empty ones, source `event` unless told), then stores the events. Two round trips
 * for any number of events (three when a key repeats). The lead creation commits on its own, so concurrent events
 * for the same new email wait on one short insert, not on each other's event inserts.
 */
export async function trackEvents(
  db: Db,
  projectId: ProjectId,
  items: TrackItem[],
  opts: { leadSource?: LeadSource } = {},
): Promise<TrackedEvent[]> {
  if (items.length === 1) {
    const one = await trackKnownLead(db, projectId, items[0]!);
    if (one) return [one];
  }
  const now = new Date();
  const emails = new Map<string, string>();
  const norms = items.map((i) => {
    const norm = normalizeLeadEmail(i.input.email);
    if (!emails.has(norm)) emails.set(norm, i.input.email);
    return norm;
  });
  const leads = await ensureLeads(db, projectId, emails, { source: opts.leadSource ?? "event" });
  const ids = timeOrderedUuids(items.length);
  const { rows } = await db.pool.query<{ id: string }>(INSERT_SQL, [
    projectId,
    ids,
    norms.map((n) => leads.get(n)!.id),
    items.map((i) => i.input.event),
    items.map((i) => JSON.stringify(i.input.properties ?? {})),
    items.map((i) => (i.input.timestamp ?? now).toISOString()),
    items.map((i) => i.key),
  ]);
  const stored = new Set(rows.map((r) => r.id));
  // Keys whose event was stored before: answer with that event, as the first call did.
  const dupKeys = items.filter((item, i) => !stored.has(ids[i]!) && item.key !== null).map((i) => i.key!);
  const earlier = new Map<string, { id: string; lead_id: string }>();
  if (dupKeys.length) {
    const found = await db.pool.query<{ id: string; lead_id: string; key: string }>(
      "SELECT id, lead_id, idempotency_key AS key FROM lead_events WHERE project_id = $1 AND idempotency_key = ANY($2::text[])",
      [projectId, dupKeys],
    );
    for (const r of found.rows) earlier.set(r.key, r);
  }
  const createdFor = new Set<string>();
  return items.map((item, i) => {
    const lead = leads.get(norms[i]!)!;
    // created_lead: only on the first event of a lead this call created
    const created = lead.created && !createdFor.has(lead.id);
    if (created) createdFor.add(lead.id);
    const prior = stored.has(ids[i]!) ? undefined : earlier.get(item.key ?? "");
    return {
      event_id: prior?.id ?? ids[i]!,
      recipient_id: prior?.lead_id ?? lead.id,
      created_lead: created,
      duplicate: prior !== undefined,
    };
  });
}

/** Records one event for a project; concurrent calls share statements (see createEventTracker). */
export type EventTracker = (projectId: ProjectId, item: TrackItem) => Promise<TrackedEvent>;

/**
 * Group commit of single events (POST /v1/events): the first call runs at once, and the calls that arrive while
 * it runs go to the database together, as one `trackEvents` per project (two statements for the lot instead of
 * one per event). Answers are per call and the same as one call alone would get; a batch the database refuses
 * is run again one event at a time, so one bad event fails alone.
 */
export function createEventTracker(db: Db, opts: { maxBatch?: number } = {}): EventTracker {
  const batcher = createBatcher<{ projectId: ProjectId; item: TrackItem }, TrackedEvent>({
    maxBatch: opts.maxBatch ?? 200,
    run: async (calls) => {
      const byProject = new Map<ProjectId, number[]>();
      calls.forEach((c, i) => {
        const list = byProject.get(c.projectId);
        if (list) list.push(i);
        else byProject.set(c.projectId, [i]);
      });
      const out = new Array<TrackedEvent>(calls.length);
      await Promise.all(
        [...byProject].map(async ([projectId, indexes]) => {
          const tracked = await trackEvents(
            db,
            projectId,
            indexes.map((i) => calls[i]!.item),
          );
          indexes.forEach((i, k) => (out[i] = tracked[k]!));
        }),
      );
      return out;
    },
  });
  return (projectId, item) => batcher.submit({ projectId, item });
}
