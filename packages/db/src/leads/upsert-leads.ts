import { type LeadUpsertInput, LEAD_LIMITS, normalizeLeadEmail, type ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";
import { timeOrderedUuid } from "../time-ordered-uuid";
import { LEAD_COLUMNS, type LeadRow, type LeadSource } from "./leads.repo";

export type UpsertResult =
  | { index: number; status: "created" | "updated"; row: LeadRow }
  | { index: number; status: "invalid"; email: string; error: string };

/** Where a field was not given, the lead keeps its value; where it was (null included), it is set. */
const given = (v: unknown): boolean => v !== undefined;

/**
 * One statement per pass over unnest(…): new emails are inserted, known ones updated (names, phone and
 * subscription set where given, attributes merged with null removing a name, tags added). The DO UPDATE's WHERE
 * refuses a merge that would pass the attribute or tag limits; such an item comes back as invalid. An email given
 * twice in one request is applied in order, one pass per repetition (one statement cannot update a row twice).
 */
const UPSERT_SQL = `
WITH input AS (
  SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[], $8::bool[],
                       $9::text[], $10::bool[], $11::jsonb[], $12::jsonb[], $13::jsonb[], $14::text[])
    AS t(id, email, norm, first_name, first_given, last_name, last_given, phone, phone_given, attrs, del, tags, sub)
)
INSERT INTO leads AS l (id, project_id, email, email_normalized, first_name, last_name, phone, attributes, tags,
                        subscription, subscription_changed_at, subscription_source, source)
SELECT i.id, $1, i.email, i.norm, i.first_name, i.last_name, i.phone, i.attrs,
       ARRAY(SELECT jsonb_array_elements_text(i.tags)), COALESCE(i.sub, 'unknown'),
       CASE WHEN i.sub IS NULL THEN NULL ELSE now() END, CASE WHEN i.sub IS NULL THEN NULL ELSE $15::text END, $15::text
  FROM input i
ON CONFLICT (project_id, email_normalized) DO UPDATE SET
  first_name = CASE WHEN (SELECT first_given FROM input WHERE id = EXCLUDED.id) THEN EXCLUDED.first_name ELSE l.first_name END,
  last_name = CASE WHEN (SELECT last_given FROM input WHERE id = EXCLUDED.id) THEN EXCLUDED.last_name ELSE l.last_name END,
  phone = CASE WHEN (SELECT phone_given FROM input WHERE id = EXCLUDED.id) THEN EXCLUDED.phone ELSE l.phone END,
  attributes = (l.attributes || EXCLUDED.attributes)
               - ARRAY(SELECT jsonb_array_elements_text((SELECT del FROM input WHERE id = EXCLUDED.id))),
  tags = COALESCE(l.tags, '{}') || ARRAY(SELECT t FROM unnest(EXCLUDED.tags) t WHERE NOT t = ANY(COALESCE(l.tags, '{}'))),
  subscription = CASE WHEN EXCLUDED.subscription_source IS NULL THEN l.subscription ELSE EXCLUDED.subscription END,
  subscription_changed_at = CASE WHEN EXCLUDED.subscription_source IS NULL OR EXCLUDED.subscription = l.subscription
                                 THEN l.subscription_changed_at ELSE now() END,
  subscription_source = CASE WHEN EXCLUDED.subscription_source IS NULL OR EXCLUDED.subscription = l.subscription
                             THEN l.subscription_source ELSE $15::text END,
  updated_at = now()
WHERE (SELECT count(*) FROM jsonb_object_keys((l.attributes || EXCLUDED.attributes)
        - ARRAY(SELECT jsonb_array_elements_text((SELECT del FROM input WHERE id = EXCLUDED.id))))) <= ${LEAD_LIMITS.attributeKeys}
  AND octet_length(((l.attributes || EXCLUDED.attributes)
        - ARRAY(SELECT jsonb_array_elements_text((SELECT del FROM input WHERE id = EXCLUDED.id))))::text) <= ${LEAD_LIMITS.attributesBytes}
  AND cardinality(COALESCE(l.tags, '{}') || ARRAY(SELECT t FROM unnest(EXCLUDED.tags) t WHERE NOT t = ANY(COALESCE(l.tags, '{}')))) <= ${LEAD_LIMITS.tags}
RETURNING ${LEAD_COLUMNS.split(", ")
  .map((c) => `l.${c}`)
  .join(", ")}, l.email_normalized, (l.xmax = 0) AS created`;

export interface LeadUpsertItem {
  index: number;
  input: LeadUpsertInput;
}

/**
 * Creates or updates each item (POST /v1/leads, shop webhooks); one result per item, in order. `source` is the
 * new lead's source and the subscription source of a subscription given here (default `api`).
 */
export async function upsertLeads(
  db: Db,
  projectId: ProjectId,
  items: LeadUpsertItem[],
  opts: { source?: LeadSource } = {},
): Promise<UpsertResult[]> {
  const source = opts.source ?? "api";
  const results: UpsertResult[] = [];
  // Passes: the n-th occurrence of an email goes in pass n.
  const passes: LeadUpsertItem[][] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const norm = normalizeLeadEmail(item.input.email);
    const n = seen.get(norm) ?? 0;
    seen.set(norm, n + 1);
    (passes[n] ??= []).push(item);
  }
  for (const pass of passes) {
    const ids = pass.map(() => timeOrderedUuid());
    const set = (i: LeadUpsertItem) =>
      Object.fromEntries(Object.entries(i.input.attributes ?? {}).filter(([, v]) => v !== null));
    const del = (i: LeadUpsertItem) =>
      Object.entries(i.input.attributes ?? {})
        .filter(([, v]) => v === null)
        .map(([k]) => k);
    const { rows } = await db.pool.query<LeadRow & { email_normalized: string; created: boolean }>(
      UPSERT_SQL,
      [
        projectId,
        ids,
        pass.map((i) => i.input.email),
        pass.map((i) => normalizeLeadEmail(i.input.email)),
        pass.map((i) => i.input.first_name ?? null),
        pass.map((i) => given(i.input.first_name)),
        pass.map((i) => i.input.last_name ?? null),
        pass.map((i) => given(i.input.last_name)),
        pass.map((i) => i.input.phone ?? null),
        pass.map((i) => given(i.input.phone)),
        pass.map((i) => JSON.stringify(set(i))),
        pass.map((i) => JSON.stringify(del(i))),
        pass.map((i) => JSON.stringify(i.input.tags ?? [])),
        pass.map((i) => i.input.subscription ?? null),
        source,
      ],
    );
    const byEmail = new Map(rows.map((r) => [r.email_normalized, r]));
    for (const item of pass) {
      const row = byEmail.get(normalizeLeadEmail(item.input.email));
      if (row) {
        const { email_normalized: _n, created, ...lead } = row;
        results.push({ index: item.index, status: created ? "created" : "updated", row: lead });
      } else {
        results.push({
          index: item.index,
          status: "invalid",
          email: item.input.email,
          error: `the lead would hold more than ${LEAD_LIMITS.attributeKeys} attributes, ${LEAD_LIMITS.attributesBytes} bytes of attributes or ${LEAD_LIMITS.tags} tags`,
        });
      }
    }
  }
  return results.sort((a, b) => a.index - b.index);
}
