import { type CampaignAudience, normalizeLeadEmail, type ProjectId } from "@emailsvc/contracts";
import { connOf, type DbOrClient } from "../create-db";
import { membershipSql, type SegmentRow, SEGMENT_COLUMNS } from "../leads/segments.repo";
import { SqlParams } from "../leads/segment-filter";

/** Marketing consent is required of every campaign but a transactional one (ARCHITECTURE.md: no consent, no mail). */
export const needsConsent = (emailType: string): boolean => emailType !== "transactional";

/** The segments an audience names, checked to be the project's: undefined names the first unknown one. */
export async function loadAudienceSegments(
  q: DbOrClient,
  projectId: ProjectId,
  audience: CampaignAudience,
): Promise<{ segments: Map<string, SegmentRow>; unknown?: string }> {
  const ids = [...new Set([...(audience.segment_ids ?? []), ...(audience.exclude?.segment_ids ?? [])])];
  const segments = new Map<string, SegmentRow>();
  if (!ids.length) return { segments };
  const { rows } = await connOf(q).query<SegmentRow>(
    `SELECT ${SEGMENT_COLUMNS} FROM segments WHERE project_id = $1 AND id = ANY($2::uuid[])`,
    [projectId, ids],
  );
  for (const r of rows) segments.set(r.id, r);
  const unknown = ids.find((id) => !segments.has(id));
  return unknown ? { segments, unknown } : { segments };
}

/** "The lead `l` is one of these": segment members, holders of any tag, listed ids or emails. */
function anyOf(
  items: { segment_ids?: string[]; tags?: string[]; lead_ids?: string[]; emails?: string[] },
  segments: Map<string, SegmentRow>,
  params: SqlParams,
  l: string,
  /** what a segment deleted since the campaign was written stands for */
  missing: "true" | "false",
): string[] {
  const parts: string[] = [];
  for (const id of items.segment_ids ?? []) {
    const segment = segments.get(id);
    parts.push(segment ? membershipSql(segment, params, l) : missing);
  }
  if (items.tags?.length) parts.push(`COALESCE(${l}.tags, '{}') && ${params.add(items.tags)}::text[]`);
  if (items.lead_ids?.length) parts.push(`${l}.id = ANY(${params.add(items.lead_ids)}::uuid[])`);
  if (items.emails?.length)
    parts.push(`${l}.email_normalized = ANY(${params.add(items.emails.map(normalizeLeadEmail))}::text[])`);
  return parts;
}

/**
 * The audience as SQL over the lead alias `l` of one project (`l.project_id` is the caller's to bind): members
 * (`all_subscribed`, segments, tags, lead ids, emails) minus the exclusions. Consent and suppressions are apart
 * (`eligibleSql`), so the pre-flight check can count what each of them leaves out. Client values only ever travel as
 * bind parameters; a dynamic segment is its compiled filter (evaluated now: the ledger is a snapshot).
 */
export function audienceSql(
  audience: CampaignAudience,
  segments: Map<string, SegmentRow>,
  params: SqlParams,
  l = "l",
): string {
  // A segment deleted after the campaign was written: no members to include, and (the safe side) everyone to
  // exclude, so a deleted exclusion never mails the people it left out.
  const members = audience.all_subscribed ? ["true"] : anyOf(audience, segments, params, l, "false");
  const excluded = audience.exclude ? anyOf(audience.exclude, segments, params, l, "true") : [];
  const inSql = members.length ? `(${members.join(" OR ")})` : "false";
  return excluded.length ? `${inSql} AND NOT (${excluded.join(" OR ")})` : inSql;
}

/** The lead's address is on the project's suppression list (bounced, complained, unsubscribed, manual). */
export const suppressedLeadSql = (l = "l") =>
  `EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = ${l}.project_id AND s.email = lower(${l}.email))`;

/** May `l` receive a campaign of this email type now: consent as the type needs it, and not suppressed. */
export function eligibleSql(emailType: string, l = "l"): string {
  const consent = needsConsent(emailType)
    ? `${l}.subscription = 'subscribed'`
    : `${l}.subscription <> 'unsubscribed'`;
  return `${consent} AND NOT ${suppressedLeadSql(l)}`;
}

/** What the audience holds, and what consent and the suppression list leave out of it (pre-flight, ledger). */
export interface AudienceCounts {
  /** leads the audience names */
  audience: number;
  /** of those, the ones the campaign goes to */
  recipients: number;
  /** left out, by reason (a lead may count under more than one) */
  excluded: {
    unsubscribed: number;
    not_subscribed: number;
    suppressed_bounce: number;
    suppressed_complaint: number;
    suppressed_unsubscribed: number;
    suppressed_manual: number;
  };
}

export async function countAudience(
  q: DbOrClient,
  projectId: ProjectId,
  audience: CampaignAudience,
  segments: Map<string, SegmentRow>,
  emailType: string,
): Promise<AudienceCounts> {
  const params = new SqlParams([projectId]);
  const where = audienceSql(audience, segments, params);
  const consent = needsConsent(emailType);
  const { rows } = await connOf(q).query<Record<string, number>>(
    `SELECT count(*)::int AS audience,
            count(*) FILTER (WHERE ${eligibleSql(emailType)})::int AS recipients,
            count(*) FILTER (WHERE l.subscription = 'unsubscribed')::int AS unsubscribed,
            count(*) FILTER (WHERE ${consent} AND l.subscription = 'unknown')::int AS not_subscribed,
            count(*) FILTER (WHERE s.reason = 'bounce')::int AS suppressed_bounce,
            count(*) FILTER (WHERE s.reason = 'complaint')::int AS suppressed_complaint,
            count(*) FILTER (WHERE s.reason = 'unsubscribed')::int AS suppressed_unsubscribed,
            count(*) FILTER (WHERE s.reason NOT IN ('bounce', 'complaint', 'unsubscribed'))::int AS suppressed_manual
       FROM leads l
       LEFT JOIN suppressions s ON s.project_id = l.project_id AND s.email = lower(l.email)
      WHERE l.project_id = $1 AND ${where}`,
    params.values,
  );
  const r = rows[0]!;
  return {
    audience: r.audience!,
    recipients: r.recipients!,
    excluded: {
      unsubscribed: r.unsubscribed!,
      not_subscribed: r.not_subscribed!,
      suppressed_bounce: r.suppressed_bounce!,
      suppressed_complaint: r.suppressed_complaint!,
      suppressed_unsubscribed: r.suppressed_unsubscribed!,
      suppressed_manual: r.suppressed_manual!,
    },
  };
}

/** Up to `n` of the campaign's would-be recipients (lead fields), for the pre-flight's variable check. */
export async function sampleAudience(
  q: DbOrClient,
  projectId: ProjectId,
  audience: CampaignAudience,
  segments: Map<string, SegmentRow>,
  emailType: string,
  n: number,
): Promise<LeadVariablesRow[]> {
  const params = new SqlParams([projectId]);
  const where = audienceSql(audience, segments, params);
  const { rows } = await connOf(q).query<LeadVariablesRow>(
    `SELECT l.email, l.first_name, l.last_name, l.phone, l.attributes FROM leads l
      WHERE l.project_id = $1 AND ${where} AND ${eligibleSql(emailType)}
      ORDER BY l.created_at DESC, l.id DESC LIMIT ${params.add(n)}::int`,
    params.values,
  );
  return rows;
}

/** The lead fields a campaign's `{{variables}}` are filled from. */
export interface LeadVariablesRow {
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  attributes: Record<string, unknown> | null;
}

/**
 * `INSERT … SELECT` of the whole ledger in one statement (set-based: a million leads are one statement, not a
 * million): one `pending` row per eligible lead of the audience. Ids are UUID v7 with the statement's time as
 * prefix (`$3`, 12 hex digits of epoch ms): they are the future activities' ids, and activities' primary key
 * stays append-mostly. Exported as text so the benchmark runs the very statement raw.
 */
export function materialiseSql(
  audience: CampaignAudience,
  segments: Map<string, SegmentRow>,
  emailType: string,
): { text: string; values: (projectId: ProjectId, campaignId: string, now?: number) => unknown[] } {
  const params = new SqlParams(["<project>", "<campaign>", "<prefix>"]);
  const where = audienceSql(audience, segments, params);
  const text = `INSERT INTO campaign_recipients (id, project_id, campaign_id, lead_id, email)
SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING decode($3::text, 'hex') FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid,
       $1::uuid, $2::uuid, l.id, l.email
  FROM leads l
 WHERE l.project_id = $1::uuid AND ${where} AND ${eligibleSql(emailType)}`;
  return {
    text,
    values: (projectId, campaignId, now = Date.now()) => [
      projectId,
      campaignId,
      now.toString(16).padStart(12, "0"),
      ...params.values.slice(3),
    ],
  };
}
