import type { PoolClient } from "pg";
import { timeOrderedUuid } from "../time-ordered-uuid";

/**
 * Processing of stored shop deliveries, each in its consumer's transaction. `claimShopWebhook` comes first: it
 * marks the delivery processed, so a redelivered message (or a second consumer holding the same one) finds it done
 * and changes nothing; if the transaction fails, the mark rolls back with the rest.
 */
export async function claimShopWebhook(client: PoolClient, projectId: string, id: string): Promise<boolean> {
  const r = await client.query(
    "UPDATE shop_webhook_events SET processed_at = now() WHERE project_id = $1 AND id = $2 AND processed_at IS NULL",
    [projectId, id],
  );
  return (r.rowCount ?? 0) === 1;
}

export interface CartInput {
  token: string;
  lineItems: unknown[];
  totalMinor: bigint;
  currency: string | null;
  updatedAt: Date | null;
}

/**
 * Upserts the cart by its token. An older delivery (by the platform's `updated_at`) does not overwrite a newer
 * one: the platform does not keep its deliveries in order. A cart already named by a checkout keeps its lead.
 */
export async function upsertCart(
  client: PoolClient,
  projectId: string,
  shopId: string,
  cart: CartInput,
): Promise<void> {
  await client.query(
    `INSERT INTO shop_carts AS c (id, project_id, shop_id, token, line_items, total_minor, currency, platform_updated_at, lead_id)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8,
             (SELECT lead_id FROM shop_checkouts WHERE shop_id = $3 AND cart_token = $4 AND lead_id IS NOT NULL LIMIT 1))
     ON CONFLICT (shop_id, token) DO UPDATE SET
       line_items = EXCLUDED.line_items, total_minor = EXCLUDED.total_minor,
       currency = COALESCE(EXCLUDED.currency, c.currency), platform_updated_at = EXCLUDED.platform_updated_at,
       lead_id = COALESCE(c.lead_id, EXCLUDED.lead_id), updated_at = now()
     WHERE c.platform_updated_at IS NULL OR EXCLUDED.platform_updated_at IS NULL
        OR EXCLUDED.platform_updated_at >= c.platform_updated_at`,
    [
      timeOrderedUuid(),
      projectId,
      shopId,
      cart.token,
      JSON.stringify(cart.lineItems),
      cart.totalMinor.toString(),
      cart.currency,
      cart.updatedAt,
    ],
  );
}

export interface CheckoutInput {
  token: string;
  cartToken: string | null;
  email: string | null;
  leadId: string | null;
  recoveryUrl: string | null;
  lineItems: unknown[];
  totalMinor: bigint;
  subtotalMinor: bigint | null;
  currency: string;
  gateways: string[];
  startedAt: Date;
}

/** The orders that close a checkout: by its token, its cart's token, or (placed after it started) its email. */
const ORDER_CLOSES_CHECKOUT = `
  EXISTS (SELECT 1 FROM shop_orders o WHERE o.shop_id = ck.shop_id AND (
    o.checkout_token = ck.token
    OR (ck.cart_token IS NOT NULL AND o.cart_token = ck.cart_token)
    OR (ck.email IS NOT NULL AND lower(o.email) = lower(ck.email) AND o.placed_at >= ck.started_at)))`;

/**
 * Upserts the checkout, attaches its cart to the lead, and starts the abandonment timer (step 1, due
 * `firstStepSeconds` after the checkout started) unless an order already closed it: orders may arrive first.
 */
export async function upsertCheckout(
  client: PoolClient,
  projectId: string,
  shopId: string,
  co: CheckoutInput,
  firstStepSeconds: number | null,
): Promise<{ checkoutId: string; timerStarted: boolean }> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO shop_checkouts AS ck (id, project_id, shop_id, token, cart_token, email, lead_id, recovery_url,
                                       line_items, total_minor, subtotal_minor, currency, gateways, started_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, $14)
     ON CONFLICT (shop_id, token) DO UPDATE SET
       cart_token = COALESCE(EXCLUDED.cart_token, ck.cart_token), email = COALESCE(EXCLUDED.email, ck.email),
       lead_id = COALESCE(EXCLUDED.lead_id, ck.lead_id), recovery_url = COALESCE(EXCLUDED.recovery_url, ck.recovery_url),
       line_items = EXCLUDED.line_items, total_minor = EXCLUDED.total_minor, subtotal_minor = EXCLUDED.subtotal_minor,
       currency = EXCLUDED.currency, gateways = EXCLUDED.gateways
     RETURNING id`,
    [
      timeOrderedUuid(),
      projectId,
      shopId,
      co.token,
      co.cartToken,
      co.email,
      co.leadId,
      co.recoveryUrl,
      JSON.stringify(co.lineItems),
      co.totalMinor.toString(),
      co.subtotalMinor?.toString() ?? null,
      co.currency,
      co.gateways,
      co.startedAt,
    ],
  );
  const checkoutId = rows[0]!.id;
  if (co.cartToken && co.leadId)
    await client.query(
      "UPDATE shop_carts SET lead_id = $4, updated_at = now() WHERE project_id = $1 AND shop_id = $2 AND token = $3 AND lead_id IS NULL",
      [projectId, shopId, co.cartToken, co.leadId],
    );
  if (firstStepSeconds === null || !co.email) return { checkoutId, timerStarted: false };
  const timer = await client.query(
    `INSERT INTO abandoned_cart_steps (id, project_id, shop_id, checkout_id, step, due_at, lead_id)
     SELECT $1, $2, $3, ck.id, 1, ck.started_at + $5::int * interval '1 second', ck.lead_id
       FROM shop_checkouts ck WHERE ck.id = $4 AND NOT ${ORDER_CLOSES_CHECKOUT}
     ON CONFLICT (checkout_id, step) DO NOTHING`,
    [timeOrderedUuid(), projectId, shopId, checkoutId, firstStepSeconds],
  );
  return { checkoutId, timerStarted: (timer.rowCount ?? 0) > 0 };
}

export interface OrderInput {
  orderId: string;
  email: string | null;
  leadId: string | null;
  cartToken: string | null;
  checkoutToken: string | null;
  totalMinor: bigint;
  currency: string;
  presentmentTotalMinor: bigint | null;
  presentmentCurrency: string | null;
  payments: { gateway: string }[];
  test: boolean;
  cancelled: boolean;
  financialStatus: string | null;
  placedAt: Date;
}

export interface AttributionCandidate {
  activity_id: string;
  campaign_id: string | null;
  automation_run_id: string | null;
  touch: "click" | "open";
  at: string;
}

export interface OrderOutcome {
  /** false: the order was already stored (a second delivery under another webhook id) */
  stored: boolean;
  stoppedSteps: number;
  touch: "click" | "open" | null;
  campaignId: string | null;
  revenueMinor: bigint;
  candidates: AttributionCandidate[];
}

/**
 * Stores the order, stops every pending abandoned-cart step it closes, attaches its cart, and attributes its
 * revenue by last touch: the campaign or automation email to the buyer clicked last within the click window,
 * else opened last within the open window (0 turns opens off). Every touch inside the windows is kept as a
 * candidate. Test and cancelled orders are stored and attributed, with no revenue.
 */
export async function storeOrder(
  client: PoolClient,
  projectId: string,
  shopId: string,
  order: OrderInput,
  windows: { clickHours: number; openHours: number },
): Promise<OrderOutcome> {
  const candidates = order.email
    ? (
        await client.query<AttributionCandidate>(
          `SELECT a.id AS activity_id, a.campaign_id, m.automation_run_id, t.touch, to_json(t.at) #>> '{}' AS at
             FROM activities a
             JOIN email_messages m ON m.id = a.email_message_id
             CROSS JOIN LATERAL (VALUES ('click', a.clicked_first_at), ('open', a.opened_first_at)) AS t(touch, at)
            WHERE a.project_id = $1 AND NOT a.is_test AND lower(a.recipient) = lower($2)
              -- a touch inside the window comes from a send made at most 30 days before it (bounds the scan)
              AND a.created_at >= $3::timestamptz - greatest($4::int, $5::int) * interval '1 hour' - interval '30 days'
              AND (a.campaign_id IS NOT NULL OR m.automation_run_id IS NOT NULL)
              AND t.at IS NOT NULL AND t.at <= $3::timestamptz
              AND ((t.touch = 'click' AND t.at >= $3::timestamptz - $4::int * interval '1 hour')
                OR (t.touch = 'open' AND $5::int > 0 AND t.at >= $3::timestamptz - $5::int * interval '1 hour'))
            ORDER BY t.at DESC`,
          [projectId, order.email, order.placedAt, windows.clickHours, windows.openHours],
        )
      ).rows
    : [];
  const winner =
    candidates.find((c) => c.touch === "click") ?? candidates.find((c) => c.touch === "open") ?? null;
  const revenue = winner && !order.test && !order.cancelled ? order.totalMinor : 0n;
  const ins = await client.query(
    `INSERT INTO shop_orders (id, project_id, shop_id, order_id, email, lead_id, cart_token, checkout_token,
        total_minor, currency, presentment_total_minor, presentment_currency, payments, test, cancelled,
        financial_status, placed_at, attributed_touch, attributed_activity_id, attributed_campaign_id,
        attributed_automation_run_id, attributed_revenue_minor, attribution_candidates)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15, $16, $17, $18, $19, $20, $21, $22,
             $23::jsonb)
     ON CONFLICT (shop_id, order_id) DO NOTHING`,
    [
      timeOrderedUuid(),
      projectId,
      shopId,
      order.orderId,
      order.email,
      order.leadId,
      order.cartToken,
      order.checkoutToken,
      order.totalMinor.toString(),
      order.currency,
      order.presentmentTotalMinor?.toString() ?? null,
      order.presentmentCurrency,
      JSON.stringify(order.payments),
      order.test,
      order.cancelled,
      order.financialStatus,
      order.placedAt,
      winner?.touch ?? null,
      winner?.activity_id ?? null,
      winner?.campaign_id ?? null,
      winner?.automation_run_id ?? null,
      revenue.toString(),
      JSON.stringify(candidates),
    ],
  );
  const stored = (ins.rowCount ?? 0) === 1;
  const stopped = await client.query(
    `UPDATE abandoned_cart_steps s SET status = 'stopped', reason = 'order placed', updated_at = now()
       FROM shop_checkouts ck
      WHERE s.checkout_id = ck.id AND s.project_id = $1 AND ck.shop_id = $2 AND s.status IN ('pending', 'sending')
        AND (ck.token = $3 OR ck.cart_token = $4 OR (lower(ck.email) = lower($5) AND ck.started_at <= $6))`,
    [projectId, shopId, order.checkoutToken, order.cartToken, order.email, order.placedAt],
  );
  if (order.cartToken && order.leadId)
    await client.query(
      "UPDATE shop_carts SET lead_id = $4, updated_at = now() WHERE project_id = $1 AND shop_id = $2 AND token = $3 AND lead_id IS NULL",
      [projectId, shopId, order.cartToken, order.leadId],
    );
  return {
    stored,
    stoppedSteps: stopped.rowCount ?? 0,
    touch: winner?.touch ?? null,
    campaignId: winner?.campaign_id ?? null,
    revenueMinor: revenue,
    candidates,
  };
}

export { ORDER_CLOSES_CHECKOUT };
