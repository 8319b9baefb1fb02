import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";
import { timeOrderedUuid } from "../time-ordered-uuid";
import type { LeadSource } from "./leads.repo";

export interface EnsuredLead {
  id: string;
  /** This call created it (exactly one caller gets true for a new email, however many race). */
  created: boolean;
}

/**
 * One statement: an empty lead (source `event`, or the caller's: `shop`) for every email the project has no lead for, and the ids of the
 * others. The new leads' subscription is the project's `auto_leads_subscribed` setting: by default `unknown`, not
 * opted in (an event is no consent to marketing). ON CONFLICT DO NOTHING makes concurrent creators of one email
 * wait for the first and then do nothing, so exactly one RETURNING row says created.
 */
const ENSURE_SQL = `
WITH input AS (SELECT * FROM unnest($2::text[], $3::text[], $4::uuid[]) AS t(norm, email, id)),
ins AS (
  INSERT INTO leads (id, project_id, email, email_normalized, subscription, subscription_changed_at,
                     subscription_source, source)
  SELECT i.id, $1, i.email, i.norm,
         CASE WHEN p.auto_leads_subscribed THEN 'subscribed' ELSE 'unknown' END,
         CASE WHEN p.auto_leads_subscribed THEN now() END,
         CASE WHEN p.auto_leads_subscribed THEN $5::text END, $5::text
    FROM input i JOIN projects p ON p.id = $1
  ON CONFLICT (project_id, email_normalized) DO NOTHING
  RETURNING id, email_normalized
)
SELECT id, email_normalized AS norm, true AS created FROM ins
UNION ALL
SELECT l.id, l.email_normalized, false FROM leads l JOIN input i ON i.norm = l.email_normalized
 WHERE l.project_id = $1`;

/** The lead of each normalised email (`display`: the spelling a new lead keeps), created where missing. */
export async function ensureLeads(
  db: Db,
  projectId: ProjectId,
  emails: Map<string, string>,
  opts: { source?: LeadSource } = {},
): Promise<Map<string, EnsuredLead>> {
  const out = new Map<string, EnsuredLead>();
  for (let attempt = 0; attempt < 3 && out.size < emails.size; attempt++) {
    const missing = [...emails].filter(([norm]) => !out.has(norm));
    const { rows } = await db.pool.query<{ id: string; norm: string; created: boolean }>(ENSURE_SQL, [
      projectId,
      missing.map(([norm]) => norm),
      missing.map(([, display]) => display),
      missing.map(() => timeOrderedUuid()),
      opts.source ?? "event",
    ]);
    for (const r of rows) out.set(r.norm, { id: r.id, created: r.created });
    // A lead another request committed after this statement's snapshot was taken is neither inserted (conflict)
    // nor seen by the select: read it again, now that it is committed.
    const still = missing.filter(([norm]) => !out.has(norm)).map(([norm]) => norm);
    if (still.length) {
      const again = await db.pool.query<{ id: string; norm: string }>(
        "SELECT id, email_normalized AS norm FROM leads WHERE project_id = $1 AND email_normalized = ANY($2::text[])",
        [projectId, still],
      );
      for (const r of again.rows) out.set(r.norm, { id: r.id, created: false });
    }
  }
  if (out.size < emails.size) throw new Error("ensureLeads: a lead could not be created or read");
  return out;
}
