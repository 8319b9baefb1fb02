import type { ProjectId } from "@emailsvc/contracts";
import { connOf, type DbOrClient } from "../create-db";

/**
 * A campaign's numbers (issue 24): its recipients and what became of them. Each figure counts recipients, once:
 * `opened` are those who opened at least once, `sent` those whose email left (whatever happened next).
 */
export interface CampaignStats {
  recipients: number;
  pending: number;
  queued: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  /** hard (Permanent) bounces: what the reputation guard counts */
  hard_bounced: number;
  complained: number;
  unsubscribed: number;
  failed: number;
  skipped: number;
  cancelled: number;
  [extra: string]: number;
}

/** One source of figures: a query over the campaign (`$1` project, `$2` campaign) answering one row of numbers. */
export type CampaignStatSource = (
  q: DbOrClient,
  projectId: ProjectId,
  campaignId: string,
) => Promise<Record<string, number>>;

/** The ledger and its activities: every recipient's state and the first-time timestamps of what it did. */
const recipientFigures: CampaignStatSource = async (q, projectId, campaignId) => {
  const { rows } = await connOf(q).query<Record<string, number>>(
    `SELECT count(*)::int AS recipients,
            count(*) FILTER (WHERE r.status = 'pending')::int AS pending,
            count(*) FILTER (WHERE r.status = 'queued')::int AS queued,
            count(*) FILTER (WHERE r.status IN ('sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'))::int AS sent,
            count(*) FILTER (WHERE a.delivered_at IS NOT NULL OR r.status IN ('delivered', 'opened', 'clicked'))::int AS delivered,
            count(*) FILTER (WHERE a.opened_first_at IS NOT NULL OR r.status = 'opened')::int AS opened,
            count(*) FILTER (WHERE a.clicked_first_at IS NOT NULL OR r.status = 'clicked')::int AS clicked,
            count(*) FILTER (WHERE r.status = 'bounced')::int AS bounced,
            count(*) FILTER (WHERE r.status = 'bounced' AND a.bounce_type = 'Permanent')::int AS hard_bounced,
            count(*) FILTER (WHERE a.complained_at IS NOT NULL OR r.status = 'complained')::int AS complained,
            count(*) FILTER (WHERE r.status = 'failed')::int AS failed,
            count(*) FILTER (WHERE r.status = 'skipped')::int AS skipped,
            count(*) FILTER (WHERE r.status = 'cancelled')::int AS cancelled
       FROM campaign_recipients r LEFT JOIN activities a ON a.id = r.id
      WHERE r.project_id = $1 AND r.campaign_id = $2`,
    [projectId, campaignId],
  );
  return rows[0]!;
};

/** Recipients who unsubscribed through this campaign's link (their suppression names the send). */
const unsubscribes: CampaignStatSource = async (q, projectId, campaignId) => {
  const { rows } = await connOf(q).query<Record<string, number>>(
    `SELECT count(*)::int AS unsubscribed FROM suppressions s
       JOIN campaign_recipients r ON r.id = s.source_activity_id AND r.campaign_id = $2
      WHERE s.project_id = $1 AND s.reason = 'unsubscribed'`,
    [projectId, campaignId],
  );
  return rows[0]!;
};

/**
 * Orders attributed to this campaign's sends by last touch (shop webhooks, issue 27) and their revenue in minor
 * units of the shop's currency; test and cancelled orders are attributed with no revenue, so they count in neither.
 * The `unsigned_` figures are the part of those that came in unsigned (a shop without a secret: anyone who knows
 * the project id could have posted them), for the dashboard to show apart.
 */
const attributedRevenue: CampaignStatSource = async (q, projectId, campaignId) => {
  const { rows } = await connOf(q).query<{
    attributed_orders: number;
    attributed_revenue_minor: string;
    unsigned_attributed_orders: number;
    unsigned_attributed_revenue_minor: string;
  }>(
    `SELECT count(*) FILTER (WHERE attributed_revenue_minor > 0)::int AS attributed_orders,
            COALESCE(sum(attributed_revenue_minor), 0)::text AS attributed_revenue_minor,
            count(*) FILTER (WHERE attributed_revenue_minor > 0 AND NOT signed)::int AS unsigned_attributed_orders,
            COALESCE(sum(attributed_revenue_minor) FILTER (WHERE NOT signed), 0)::text
              AS unsigned_attributed_revenue_minor
       FROM shop_orders WHERE project_id = $1 AND attributed_campaign_id = $2`,
    [projectId, campaignId],
  );
  return {
    attributed_orders: rows[0]!.attributed_orders,
    attributed_revenue_minor: Number(rows[0]!.attributed_revenue_minor),
    unsigned_attributed_orders: rows[0]!.unsigned_attributed_orders,
    unsigned_attributed_revenue_minor: Number(rows[0]!.unsigned_attributed_revenue_minor),
  };
};

/**
 * Where a campaign's figures come from. A feature that attributes more to campaign sends (issue 27: orders and
 * revenue, traced from a click's activity to its campaign) adds its source here; every source's columns land in
 * the stats as they are named.
 */
export const CAMPAIGN_STAT_SOURCES: CampaignStatSource[] = [
  recipientFigures,
  unsubscribes,
  attributedRevenue,
];

export async function campaignStats(
  q: DbOrClient,
  projectId: ProjectId,
  campaignId: string,
): Promise<CampaignStats> {
  const parts = await Promise.all(CAMPAIGN_STAT_SOURCES.map((source) => source(q, projectId, campaignId)));
  return Object.assign({}, ...parts) as CampaignStats;
}
