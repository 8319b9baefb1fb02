import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";

// Reads of the project's orders for the dashboard (the writes are shop-processing.repo.ts's).

export interface LeadOrderRow {
  id: string;
  order_id: string;
  shop_domain: string;
  /** minor units, as text: a bigint */
  total_minor: string;
  currency: string;
  cancelled: boolean;
  test: boolean;
  attributed_campaign_id: string | null;
  attributed_activity_id: string | null;
  placed_at: Date;
}

/**
 * A lead's orders (a lead's timeline), newest first, before the (placed_at, id) position: per shop of the project,
 * the (shop_id, lead_id) index.
 */
export async function listLeadOrders(
  db: Db,
  projectId: ProjectId,
  leadId: string,
  before: { at: Date; id: string } | undefined,
  limit: number,
): Promise<LeadOrderRow[]> {
  const { rows } = await db.pool.query<LeadOrderRow>(
    `SELECT o.id, o.order_id, s.shop_domain, o.total_minor::text AS total_minor, o.currency, o.cancelled, o.test,
            o.attributed_campaign_id, o.attributed_activity_id, o.placed_at
       FROM shop_connections s JOIN shop_orders o ON o.shop_id = s.id AND o.lead_id = $2
      WHERE s.project_id = $1 AND o.project_id = $1
        AND ($3::timestamptz IS NULL OR (o.placed_at, o.id) < ($3, $4::uuid))
      ORDER BY o.placed_at DESC, o.id DESC LIMIT $5`,
    [projectId, leadId, before?.at ?? null, before?.id ?? null, limit],
  );
  return rows;
}
