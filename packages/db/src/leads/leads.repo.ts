import {
  isUuid,
  LEAD_LIMITS,
  type LeadUpdateInput,
  normalizeLeadEmail,
  type ProjectId,
} from "@emailsvc/contracts";
import { type Db, withTransaction } from "../create-db";
import { SqlParams } from "./segment-filter";

/** Where a lead came from (`leads.source`), and who last set its subscription (`subscription_source`). */
export type LeadSource = "api" | "event" | "import" | "shop";

/** A lead as the database holds it. */
export interface LeadRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  attributes: Record<string, unknown>;
  tags: string[] | null;
  subscription: string;
  subscription_changed_at: Date | null;
  subscription_source: string | null;
  source: string;
  created_at: Date;
  updated_at: Date;
}

export const LEAD_COLUMNS =
  "id, email, first_name, last_name, phone, attributes, tags, subscription, subscription_changed_at, subscription_source, source, created_at, updated_at";

/**
 * The lead `ref` names in the project: its UUID, or its email (anything with an `@`, matched normalised).
 * Undefined when the project has no such lead: another project's lead is never found.
 */
export async function findLeadRow(db: Db, projectId: ProjectId, ref: string): Promise<LeadRow | undefined> {
  if (ref.includes("@"))
    return (
      await db.pool.query<LeadRow>(
        `SELECT ${LEAD_COLUMNS} FROM leads WHERE project_id = $1 AND email_normalized = $2`,
        [projectId, normalizeLeadEmail(ref)],
      )
    ).rows[0];
  if (!isUuid(ref)) return undefined;
  return (
    await db.pool.query<LeadRow>(`SELECT ${LEAD_COLUMNS} FROM leads WHERE project_id = $1 AND id = $2`, [
      projectId,
      ref,
    ])
  ).rows[0];
}

/** The id of the project's lead with this email (matched normalised), or undefined. */
export async function findLeadIdByEmail(
  db: Db,
  projectId: ProjectId,
  email: string,
): Promise<string | undefined> {
  const { rows } = await db.pool.query<{ id: string }>(
    "SELECT id FROM leads WHERE project_id = $1 AND email_normalized = $2",
    [projectId, normalizeLeadEmail(email)],
  );
  return rows[0]?.id;
}

/**
 * Each given field replaces the lead's (`attributes` and `tags` as a whole; null clears a name or phone); a changed
 * subscription records when and that the API changed it. Undefined when the lead is gone. A new email that is
 * another lead's in the project fails with PostgreSQL's unique violation (23505), for the caller to answer.
 */
export async function updateLeadRow(
  db: Db,
  projectId: ProjectId,
  leadId: string,
  input: LeadUpdateInput,
): Promise<LeadRow | undefined> {
  const params = new SqlParams([projectId, leadId]);
  const set = ["updated_at = now()"];
  if (input.email !== undefined)
    set.push(
      `email = ${params.add(input.email)}`,
      `email_normalized = ${params.add(normalizeLeadEmail(input.email))}`,
    );
  if (input.first_name !== undefined) set.push(`first_name = ${params.add(input.first_name)}`);
  if (input.last_name !== undefined) set.push(`last_name = ${params.add(input.last_name)}`);
  if (input.phone !== undefined) set.push(`phone = ${params.add(input.phone)}`);
  if (input.attributes !== undefined)
    set.push(`attributes = ${params.add(JSON.stringify(input.attributes))}::jsonb`);
  if (input.tags !== undefined) set.push(`tags = ${params.add(input.tags)}::text[]`);
  if (input.subscription !== undefined) {
    const s = params.add(input.subscription);
    set.push(
      `subscription_changed_at = CASE WHEN subscription = ${s}::text THEN subscription_changed_at ELSE now() END`,
      `subscription_source = CASE WHEN subscription = ${s}::text THEN subscription_source ELSE 'api' END`,
      `subscription = ${s}::text`,
    );
  }
  const { rows } = await db.pool.query<LeadRow>(
    `UPDATE leads SET ${set.join(", ")} WHERE project_id = $1 AND id = $2 RETURNING ${LEAD_COLUMNS}`,
    params.values,
  );
  return rows[0];
}

/**
 * Removes the lead and its custom events in one transaction (its segment memberships go with it: ON DELETE
 * CASCADE). Answers how many events went.
 */
export async function deleteLeadWithEvents(db: Db, projectId: ProjectId, leadId: string): Promise<number> {
  return withTransaction(db, async (c) => {
    const e = await c.query("DELETE FROM lead_events WHERE project_id = $1 AND lead_id = $2", [
      projectId,
      leadId,
    ]);
    await c.query("DELETE FROM leads WHERE project_id = $1 AND id = $2", [projectId, leadId]);
    return e.rowCount ?? 0;
  });
}

/**
 * Merges `set` into the lead's attributes and removes the names in `remove`, in one statement (concurrent merges
 * of different names both land). Undefined, and no change, when the merged whole would pass the limits.
 */
export async function mergeLeadAttributesRow(
  db: Db,
  projectId: ProjectId,
  leadId: string,
  set: Record<string, unknown>,
  remove: string[],
): Promise<Record<string, unknown> | undefined> {
  const merged = `((attributes || $3::jsonb) - $4::text[])`;
  const { rows } = await db.pool.query<{ attributes: Record<string, unknown> }>(
    `UPDATE leads SET attributes = ${merged}, updated_at = now()
      WHERE project_id = $1 AND id = $2
        AND (SELECT count(*) FROM jsonb_object_keys(${merged})) <= ${LEAD_LIMITS.attributeKeys}
        AND octet_length(${merged}::text) <= ${LEAD_LIMITS.attributesBytes}
      RETURNING attributes`,
    [projectId, leadId, JSON.stringify(set), remove],
  );
  return rows[0]?.attributes;
}

const ADD_TAGS = `UPDATE leads SET tags = COALESCE(tags, '{}') || ARRAY(SELECT t FROM unnest($3::text[]) t WHERE NOT t = ANY(COALESCE(tags, '{}'))),
            updated_at = now()
      WHERE project_id = $1 AND id = $2
        AND cardinality(COALESCE(tags, '{}') || ARRAY(SELECT t FROM unnest($3::text[]) t WHERE NOT t = ANY(COALESCE(tags, '{}')))) <= ${LEAD_LIMITS.tags}
      RETURNING tags`;
const REMOVE_TAGS = `UPDATE leads SET tags = ARRAY(SELECT t FROM unnest(COALESCE(tags, '{}')) t WHERE NOT t = ANY($3::text[])), updated_at = now()
      WHERE project_id = $1 AND id = $2 RETURNING tags`;

/**
 * Adds the tags the lead lacks (undefined, and no change, when it would hold more than the limit), or removes the
 * given ones (undefined when the lead is gone). Answers the lead's tags after the change.
 */
export async function changeLeadTags(
  db: Db,
  projectId: ProjectId,
  leadId: string,
  change: { add: string[] } | { remove: string[] },
): Promise<string[] | undefined> {
  const [sql, tags] = "add" in change ? [ADD_TAGS, change.add] : [REMOVE_TAGS, change.remove];
  return (await db.pool.query<{ tags: string[] }>(sql, [projectId, leadId, tags])).rows[0]?.tags;
}

/** A position in a lead's timeline: the (time, id) of the last item shown; the next page is strictly older. */
export interface TimelinePosition {
  at: Date;
  id: string;
}

export interface LeadEventTimelineRow {
  id: string;
  name: string;
  properties: Record<string, unknown>;
  occurred_at: Date;
}

/** A lead's custom events, newest first, before `before` (the (project_id, lead_id, occurred_at, id) index). */
export async function listLeadEventsBefore(
  db: Db,
  projectId: ProjectId,
  leadId: string,
  before: TimelinePosition | undefined,
  limit: number,
): Promise<LeadEventTimelineRow[]> {
  const { rows } = await db.pool.query<LeadEventTimelineRow>(
    `SELECT id, name, properties, occurred_at FROM lead_events
      WHERE project_id = $1 AND lead_id = $2
        AND ($3::timestamptz IS NULL OR (occurred_at, id) < ($3, $4::uuid))
      ORDER BY occurred_at DESC, id DESC LIMIT $5`,
    [projectId, leadId, before?.at ?? null, before?.id ?? null, limit],
  );
  return rows;
}
