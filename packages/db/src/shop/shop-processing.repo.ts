import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";
import { timeOrderedUuids } from "../time-ordered-uuid";

/**
 * Processing of stored shop deliveries, a batch of one topic per statement. Each statement first claims its
 * deliveries (`processed_at`, only where still null) and applies only the ones it claimed, in the same statement
 * (one commit): a redelivered message, or a second consumer holding the same delivery, finds it claimed and
 * changes nothing; if the statement fails, the claims roll back with the rest. The statement returns the
 * deliveries it claimed.
 *
 * Within one statement a row cannot be upserted twice, so the callers split a batch into rounds of distinct keys
 * (`roundsByKey`); rows go in key order, so concurrent batches lock shared rows in one order.
 */
const CLAIM = `claimed AS (
  UPDATE shop_webhook_events e SET processed_at = now() FROM input i
   WHERE e.project_id = i.project_id AND e.id = i.event_id AND e.processed_at IS NULL
  RETURNING e.id
)`;

/** Splits items into rounds where no key repeats, keeping their order: the n-th item of a key goes to round n. */
export function roundsByKey<T>(items: T[], key: (t: T) => string): T[][] {
  const rounds: T[][] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    (rounds[n] ??= []).push(item);
  }
  return rounds;
}

/**
 * A batch's rows as one JSON document for `jsonb_to_recordset($1::jsonb)`: one native JSON.stringify for the lot,
 * where a parameter array per column has pg escape every JSON value into an array literal (and PostgreSQL
 * unescape it). Money travels as text (bigint), dates as ISO strings.
 */
function recordset(rows: Record<string, unknown>[]): string {
  return JSON.stringify(rows);
}

export interface CartInput {
  token: string;
  lineItems: unknown[];
  totalMinor: bigint;
  currency: string | null;
  updatedAt: Date | null;
}

/** One delivery to apply: which stored delivery it is and the shop it belongs to. */
export interface Applied<T> {
  eventId: string;
  projectId: ProjectId;
  shopId: string;
  input: T;
}

/**
 * Upserts carts by their token. An older delivery (by the platform's `updated_at`) does not overwrite a newer
 * one: the platform does not keep its deliveries in order. A cart already named by a checkout keeps its lead.
 * The carts must have distinct (shop, token).
 */
export async function applyCarts(db: Pick<Db, "pool">, carts: Applied<CartInput>[]): Promise<Set<string>> {
  const ids = timeOrderedUuids(carts.length);
  const { rows } = await db.pool.query<{ id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t(event_id uuid, id uuid, project_id uuid, shop_id uuid, token text, line_items jsonb, total_minor bigint,
              currency text, updated_at timestamptz)
     ), ${CLAIM}, up AS (
       INSERT INTO shop_carts AS c (id, project_id, shop_id, token, line_items, total_minor, currency,
                                    platform_updated_at, lead_id)
       SELECT i.id, i.project_id, i.shop_id, i.token, i.line_items, i.total_minor, i.currency, i.updated_at,
              (SELECT ck.lead_id FROM shop_checkouts ck
                WHERE ck.shop_id = i.shop_id AND ck.cart_token = i.token AND ck.lead_id IS NOT NULL LIMIT 1)
         FROM input i JOIN claimed ON claimed.id = i.event_id
        ORDER BY i.shop_id, i.token
       ON CONFLICT (shop_id, token) DO UPDATE SET
         line_items = EXCLUDED.line_items, total_minor = EXCLUDED.total_minor,
         currency = COALESCE(EXCLUDED.currency, c.currency), platform_updated_at = EXCLUDED.platform_updated_at,
         lead_id = COALESCE(c.lead_id, EXCLUDED.lead_id), updated_at = now()
       WHERE c.platform_updated_at IS NULL OR EXCLUDED.platform_updated_at IS NULL
          OR EXCLUDED.platform_updated_at >= c.platform_updated_at
     )
     SELECT id FROM claimed`,
    [
      recordset(
        carts.map((c, i) => ({
          event_id: c.eventId,
          id: ids[i],
          project_id: c.projectId,
          shop_id: c.shopId,
          token: c.input.token,
          line_items: c.input.lineItems,
          total_minor: c.input.totalMinor.toString(),
          currency: c.input.currency,
          updated_at: c.input.updatedAt,
        })),
      ),
    ],
  );
  return new Set(rows.map((r) => r.id));
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
  /** the shop's first abandoned-cart step, in seconds after the checkout started; null: no steps */
  firstStepSeconds: number | null;
}

/**
 * The orders that close a checkout `ck`: by its token, its cart's token, or (placed after it started) its buyer,
 * i.e. the lead of its email. Three index lookups rather than one OR, which PostgreSQL can only answer by
 * reading every order of the shop (a cost that grew with the shop, paid by every checkout and every due step).
 */
const ORDER_CLOSES_CHECKOUT = `(
  EXISTS (SELECT 1 FROM shop_orders o WHERE o.shop_id = ck.shop_id AND o.checkout_token = ck.token)
  OR (ck.cart_token IS NOT NULL
      AND EXISTS (SELECT 1 FROM shop_orders o WHERE o.shop_id = ck.shop_id AND o.cart_token = ck.cart_token))
  OR (ck.lead_id IS NOT NULL
      AND EXISTS (SELECT 1 FROM shop_orders o
                   WHERE o.shop_id = ck.shop_id AND o.lead_id = ck.lead_id AND o.placed_at >= ck.started_at)))`;

/**
 * Upserts checkouts, attaches their carts to the lead, and starts each one's abandonment timer (step 1, due
 * `firstStepSeconds` after the checkout started) unless an order already closed it: orders may arrive first.
 * The checkouts must have distinct (shop, token).
 */
export async function applyCheckouts(
  db: Pick<Db, "pool">,
  checkouts: Applied<CheckoutInput>[],
): Promise<Set<string>> {
  const ids = timeOrderedUuids(checkouts.length * 2);
  const { rows } = await db.pool.query<{ id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t(event_id uuid, id uuid, project_id uuid, shop_id uuid, token text, cart_token text, email text,
              lead_id uuid, recovery_url text, line_items jsonb, total_minor bigint, subtotal_minor bigint,
              currency text, gateways text[], started_at timestamptz, first_step_seconds int, timer_id uuid)
     ), ${CLAIM}, ck AS (
       INSERT INTO shop_checkouts AS ck (id, project_id, shop_id, token, cart_token, email, lead_id, recovery_url,
                                         line_items, total_minor, subtotal_minor, currency, gateways, started_at)
       SELECT i.id, i.project_id, i.shop_id, i.token, i.cart_token, i.email, i.lead_id, i.recovery_url,
              i.line_items, i.total_minor, i.subtotal_minor, i.currency,
              i.gateways, i.started_at
         FROM input i JOIN claimed ON claimed.id = i.event_id
        ORDER BY i.shop_id, i.token
       ON CONFLICT (shop_id, token) DO UPDATE SET
         cart_token = COALESCE(EXCLUDED.cart_token, ck.cart_token), email = COALESCE(EXCLUDED.email, ck.email),
         lead_id = COALESCE(EXCLUDED.lead_id, ck.lead_id), recovery_url = COALESCE(EXCLUDED.recovery_url, ck.recovery_url),
         line_items = EXCLUDED.line_items, total_minor = EXCLUDED.total_minor, subtotal_minor = EXCLUDED.subtotal_minor,
         currency = EXCLUDED.currency, gateways = EXCLUDED.gateways
       RETURNING ck.id, ck.project_id, ck.shop_id, ck.token, ck.cart_token, ck.lead_id, ck.started_at
     ), carts AS (
       UPDATE shop_carts c SET lead_id = i.lead_id, updated_at = now()
         FROM (SELECT DISTINCT ON (i.shop_id, i.cart_token) i.project_id, i.shop_id, i.cart_token, i.lead_id
                 FROM input i JOIN claimed ON claimed.id = i.event_id
                WHERE i.cart_token IS NOT NULL AND i.lead_id IS NOT NULL
                ORDER BY i.shop_id, i.cart_token) i
        WHERE c.project_id = i.project_id AND c.shop_id = i.shop_id AND c.token = i.cart_token AND c.lead_id IS NULL
     ), timers AS (
       INSERT INTO abandoned_cart_steps (id, project_id, shop_id, checkout_id, step, due_at, lead_id)
       SELECT i.timer_id, ck.project_id, ck.shop_id, ck.id, 1,
              ck.started_at + i.first_step_seconds * interval '1 second', ck.lead_id
         FROM ck JOIN input i ON i.shop_id = ck.shop_id AND i.token = ck.token
        WHERE i.first_step_seconds IS NOT NULL AND i.email IS NOT NULL AND NOT ${ORDER_CLOSES_CHECKOUT}
       ON CONFLICT (checkout_id, step) DO NOTHING
     )
     SELECT id FROM claimed`,
    [
      recordset(
        checkouts.map((c, i) => ({
          event_id: c.eventId,
          id: ids[2 * i],
          project_id: c.projectId,
          shop_id: c.shopId,
          token: c.input.token,
          cart_token: c.input.cartToken,
          email: c.input.email,
          lead_id: c.input.leadId,
          recovery_url: c.input.recoveryUrl,
          line_items: c.input.lineItems,
          total_minor: c.input.totalMinor.toString(),
          subtotal_minor: c.input.subtotalMinor?.toString() ?? null,
          currency: c.input.currency,
          gateways: c.input.gateways,
          started_at: c.input.startedAt,
          first_step_seconds: c.input.firstStepSeconds,
          timer_id: ids[2 * i + 1],
        })),
      ),
    ],
  );
  return new Set(rows.map((r) => r.id));
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
  /** delivered signed; an unsigned order is attributed and counted apart in the stats */
  signed: boolean;
}

export interface AttributionCandidate {
  activity_id: string;
  campaign_id: string | null;
  automation_run_id: string | null;
  touch: "click" | "open";
  at: string;
}

export interface Attribution {
  touch: "click" | "open" | null;
  winner: AttributionCandidate | null;
  revenueMinor: bigint;
  candidates: AttributionCandidate[];
}

/**
 * Revenue attribution by last touch for a batch of orders in one statement: the campaign or automation email to
 * the buyer clicked last within the click window, else opened last within the open window (0 turns opens off).
 * Every touch inside the windows is kept as a candidate. Test and cancelled orders are attributed, with no revenue.
 */
export async function attributeOrders(
  db: Pick<Db, "pool">,
  orders: { projectId: ProjectId; order: OrderInput; clickHours: number; openHours: number }[],
): Promise<Attribution[]> {
  const withEmail = orders.map((o, i) => ({ ...o, i })).filter((o) => o.order.email);
  const byOrder = new Map<number, AttributionCandidate[]>();
  if (withEmail.length) {
    const { rows } = await db.pool.query<AttributionCandidate & { n: number }>(
      // One pass over each project's activities since the batch's earliest window: the touched ones (opened or
      // clicked) whose recipient is one of the batch's buyers, matched as a hashed set. Joined per order in the
      // same scan, PostgreSQL walked the project's whole range once per order: on a project with 180,000
      // activities a batch of 33 orders took 10.3 s (875,000 buffers); this way 0.66 s (26,500).
      `WITH i AS MATERIALIZED (
         SELECT * FROM unnest($1::int[], $2::uuid[], $3::text[], $4::timestamptz[], $5::int[], $6::int[])
           AS i(n, project_id, email, placed_at, click_hours, open_hours)
       ), touched AS MATERIALIZED (
         SELECT a.id, a.project_id, lower(a.recipient) AS email, a.created_at, a.campaign_id, a.email_message_id,
                a.clicked_first_at, a.opened_first_at
           FROM (SELECT project_id,
                        -- a touch inside the window comes from a send made at most 30 days before it
                        min(placed_at - greatest(click_hours, open_hours) * interval '1 hour' - interval '30 days')
                          AS since
                   FROM i GROUP BY project_id) p
           JOIN activities a ON a.project_id = p.project_id AND a.created_at >= p.since
          WHERE NOT a.is_test AND (a.clicked_first_at IS NOT NULL OR a.opened_first_at IS NOT NULL)
            AND lower(a.recipient) IN (SELECT lower(email) FROM i)
       )
       SELECT i.n, a.id AS activity_id, a.campaign_id, m.automation_run_id, t.touch, to_json(t.at) #>> '{}' AS at
         FROM i
         JOIN touched a ON a.project_id = i.project_id AND a.email = lower(i.email)
              AND a.created_at >= i.placed_at - greatest(i.click_hours, i.open_hours) * interval '1 hour'
                                 - interval '30 days'
         JOIN email_messages m ON m.id = a.email_message_id
        CROSS JOIN LATERAL (VALUES ('click', a.clicked_first_at), ('open', a.opened_first_at)) AS t(touch, at)
        WHERE (a.campaign_id IS NOT NULL OR m.automation_run_id IS NOT NULL)
          AND t.at IS NOT NULL AND t.at <= i.placed_at
          AND ((t.touch = 'click' AND t.at >= i.placed_at - i.click_hours * interval '1 hour')
            OR (t.touch = 'open' AND i.open_hours > 0 AND t.at >= i.placed_at - i.open_hours * interval '1 hour'))
        ORDER BY i.n, t.at DESC`,
      [
        withEmail.map((o) => o.i),
        withEmail.map((o) => o.projectId),
        withEmail.map((o) => o.order.email),
        withEmail.map((o) => o.order.placedAt),
        withEmail.map((o) => o.clickHours),
        withEmail.map((o) => o.openHours),
      ],
    );
    for (const { n, ...c } of rows) {
      const list = byOrder.get(n);
      if (list) list.push(c);
      else byOrder.set(n, [c]);
    }
  }
  return orders.map((o, i) => {
    const candidates = byOrder.get(i) ?? [];
    const winner =
      candidates.find((c) => c.touch === "click") ?? candidates.find((c) => c.touch === "open") ?? null;
    const revenueMinor = winner && !o.order.test && !o.order.cancelled ? o.order.totalMinor : 0n;
    return { touch: winner?.touch ?? null, winner, revenueMinor, candidates };
  });
}

/**
 * Stores orders with their attribution (an order already stored under another webhook id stays as it is), stops
 * every pending abandoned-cart step each one closes (its checkout, its cart, or a checkout of its buyer started
 * before it), and attaches its cart to the lead.
 */
export async function applyOrders(
  db: Pick<Db, "pool">,
  orders: Applied<OrderInput & { attribution: Attribution }>[],
): Promise<Set<string>> {
  const ids = timeOrderedUuids(orders.length);
  const { rows } = await db.pool.query<{ id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t(event_id uuid, id uuid, project_id uuid, shop_id uuid, order_id text, email text, lead_id uuid,
              cart_token text, checkout_token text, total_minor bigint, currency text, presentment_total_minor bigint,
              presentment_currency text, payments jsonb, test bool, cancelled bool, financial_status text,
              signed bool, placed_at timestamptz, attributed_touch text, attributed_activity_id uuid, attributed_campaign_id uuid,
              attributed_automation_run_id uuid, attributed_revenue_minor bigint, attribution_candidates jsonb)
     ), ${CLAIM}, mine AS (
       SELECT i.* FROM input i JOIN claimed ON claimed.id = i.event_id
     ), ins AS (
       INSERT INTO shop_orders (id, project_id, shop_id, order_id, email, lead_id, cart_token, checkout_token,
          total_minor, currency, presentment_total_minor, presentment_currency, payments, test, cancelled,
          financial_status, signed, placed_at, attributed_touch, attributed_activity_id, attributed_campaign_id,
          attributed_automation_run_id, attributed_revenue_minor, attribution_candidates)
       SELECT id, project_id, shop_id, order_id, email, lead_id, cart_token, checkout_token, total_minor, currency,
              presentment_total_minor, presentment_currency, payments, test, cancelled, financial_status, signed, placed_at,
              attributed_touch, attributed_activity_id, attributed_campaign_id, attributed_automation_run_id,
              attributed_revenue_minor, attribution_candidates
         FROM mine ORDER BY shop_id, order_id
       ON CONFLICT (shop_id, order_id) DO NOTHING
     ), closed AS (
       SELECT ck.id FROM mine i JOIN shop_checkouts ck ON ck.shop_id = i.shop_id AND ck.token = i.checkout_token
       UNION
       SELECT ck.id FROM mine i JOIN shop_checkouts ck ON ck.shop_id = i.shop_id AND ck.cart_token = i.cart_token
       UNION
       SELECT ck.id FROM mine i JOIN shop_checkouts ck
           ON ck.shop_id = i.shop_id AND ck.lead_id = i.lead_id AND ck.started_at <= i.placed_at
     ), stopped AS (
       UPDATE abandoned_cart_steps s SET status = 'stopped', reason = 'order placed', updated_at = now()
         FROM (SELECT id FROM closed ORDER BY id) ck
        WHERE s.checkout_id = ck.id AND s.status IN ('pending', 'sending')
     ), carts AS (
       UPDATE shop_carts c SET lead_id = i.lead_id, updated_at = now()
         FROM (SELECT DISTINCT ON (shop_id, cart_token) project_id, shop_id, cart_token, lead_id FROM mine
                WHERE cart_token IS NOT NULL AND lead_id IS NOT NULL ORDER BY shop_id, cart_token) i
        WHERE c.project_id = i.project_id AND c.shop_id = i.shop_id AND c.token = i.cart_token AND c.lead_id IS NULL
     )
     SELECT id FROM claimed`,
    [
      recordset(
        orders.map((o, i) => ({
          event_id: o.eventId,
          id: ids[i],
          project_id: o.projectId,
          shop_id: o.shopId,
          order_id: o.input.orderId,
          email: o.input.email,
          lead_id: o.input.leadId,
          cart_token: o.input.cartToken,
          checkout_token: o.input.checkoutToken,
          total_minor: o.input.totalMinor.toString(),
          currency: o.input.currency,
          presentment_total_minor: o.input.presentmentTotalMinor?.toString() ?? null,
          presentment_currency: o.input.presentmentCurrency,
          payments: o.input.payments,
          test: o.input.test,
          cancelled: o.input.cancelled,
          financial_status: o.input.financialStatus,
          signed: o.input.signed,
          placed_at: o.input.placedAt,
          attributed_touch: o.input.attribution.touch,
          attributed_activity_id: o.input.attribution.winner?.activity_id ?? null,
          attributed_campaign_id: o.input.attribution.winner?.campaign_id ?? null,
          attributed_automation_run_id: o.input.attribution.winner?.automation_run_id ?? null,
          attributed_revenue_minor: o.input.attribution.revenueMinor.toString(),
          attribution_candidates: o.input.attribution.candidates,
        })),
      ),
    ],
  );
  return new Set(rows.map((r) => r.id));
}

export { ORDER_CLOSES_CHECKOUT };
