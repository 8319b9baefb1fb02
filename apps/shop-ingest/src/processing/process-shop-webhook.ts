import {
  cartUpdatePayload,
  checkoutCreatePayload,
  normalizeLeadEmail,
  currencyExponent,
  orderCreatePayload,
  toMinorUnits,
  type ShopLineItem,
  type ShopTopic,
} from "@emailsvc/contracts";
import {
  claimShopWebhook,
  type Db,
  ensureLeads,
  findShopWebhook,
  findShop,
  storeOrder,
  trackEvents,
  upsertCart,
  upsertCheckout,
  withTransaction,
} from "@emailsvc/db";

export type ProcessOutcome = "processed" | "already-processed" | "missing";

/** Line items in minor units, as templates and totals use them (`{{#each items}}` in the abandoned-cart email). */
function lineItemsOf(items: ShopLineItem[], exponent: number) {
  return items.map((i) => {
    const price = toMinorUnits(i.price, exponent);
    const line =
      i.line_price !== undefined ? toMinorUnits(i.line_price, exponent) : price * BigInt(i.quantity);
    return {
      title: i.title ?? null,
      variant_title: i.variant_title ?? null,
      sku: i.sku ?? null,
      product_id: i.product_id ?? null,
      variant_id: i.variant_id ?? null,
      quantity: i.quantity,
      price_minor: price.toString(),
      line_price_minor: line.toString(),
    };
  });
}

/** The lead of a buyer's email (source `shop`), created when missing; new leads are not opted in (ARCHITECTURE). */
async function leadOf(db: Db, projectId: string, email: string | null | undefined): Promise<string | null> {
  if (!email) return null;
  const norm = normalizeLeadEmail(email);
  const leads = await ensureLeads(db, projectId, new Map([[norm, email]]), { source: "shop" });
  return leads.get(norm)?.id ?? null;
}

/**
 * Applies one stored delivery. Its first statement marks it processed inside the transaction, so a redelivered
 * message finds it done and changes nothing. Orders may come before their checkout (or carts after both): each
 * topic upserts by the platform's tokens and links what is already there.
 */
export async function processShopWebhook(
  deps: { db: Db; stepUnitSeconds: number },
  projectId: string,
  webhookEventId: string,
  topic: ShopTopic,
): Promise<ProcessOutcome> {
  const { db } = deps;
  const ev = await findShopWebhook(db, projectId, webhookEventId);
  if (!ev) return "missing";
  if (ev.processed_at) return "already-processed";
  const shop = await findShop(db, projectId, ev.shop_id);
  if (!shop) return "missing"; // disconnected since: nothing to apply it to

  if (topic === "cart/update") {
    const cart = cartUpdatePayload.parse(ev.payload);
    const exponent = currencyExponent(cart.currency ?? "USD");
    const items = lineItemsOf(cart.line_items, exponent);
    return withTransaction(db.pool, async (client) => {
      if (!(await claimShopWebhook(client, projectId, ev.id))) return "already-processed";
      await upsertCart(client, projectId, shop.id, {
        token: cart.token,
        lineItems: items,
        totalMinor: items.reduce((s, i) => s + BigInt(i.line_price_minor), 0n),
        currency: cart.currency ?? null,
        updatedAt: cart.updated_at ? new Date(cart.updated_at) : null,
      });
      return "processed";
    });
  }

  if (topic === "checkout/create") {
    const co = checkoutCreatePayload.parse(ev.payload);
    const exponent = currencyExponent(co.currency);
    const leadId = await leadOf(db, projectId, co.email);
    const startedAt = co.created_at ? new Date(co.created_at) : ev.received_at;
    if (leadId && co.email)
      await trackEvents(
        db,
        projectId,
        [
          {
            input: {
              email: co.email,
              event: "checkout_started",
              properties: {
                shop: shop.shop_domain,
                checkout_token: co.token,
                total_price: co.total_price,
                currency: co.currency,
              },
              timestamp: startedAt,
            },
            key: `shop:${shop.id}:checkout:${co.token}`,
          },
        ],
        { leadSource: "shop" },
      );
    const first = shop.abandoned_steps_minutes[0];
    return withTransaction(db.pool, async (client) => {
      if (!(await claimShopWebhook(client, projectId, ev.id))) return "already-processed";
      await upsertCheckout(
        client,
        projectId,
        shop.id,
        {
          token: co.token,
          cartToken: co.cart_token ?? null,
          email: co.email ?? null,
          leadId,
          recoveryUrl: co.abandoned_checkout_url ?? null,
          lineItems: lineItemsOf(co.line_items, exponent),
          totalMinor: toMinorUnits(co.total_price, exponent),
          subtotalMinor: co.subtotal_price ? toMinorUnits(co.subtotal_price, exponent) : null,
          currency: co.currency,
          gateways: co.payment_gateway_names ?? (co.gateway ? [co.gateway] : []),
          startedAt,
        },
        first === undefined ? null : first * deps.stepUnitSeconds,
      );
      return "processed";
    });
  }

  const order = orderCreatePayload.parse(ev.payload);
  const exponent = currencyExponent(order.currency);
  const leadId = await leadOf(db, projectId, order.email);
  const placedAt = order.created_at ? new Date(order.created_at) : ev.received_at;
  if (leadId && order.email)
    await trackEvents(
      db,
      projectId,
      [
        {
          input: {
            email: order.email,
            event: "order_placed",
            properties: {
              shop: shop.shop_domain,
              order_id: order.id,
              total_price: order.total_price,
              currency: order.currency,
              test: order.test ?? false,
            },
            timestamp: placedAt,
          },
          key: `shop:${shop.id}:order:${order.id}`,
        },
      ],
      { leadSource: "shop" },
    );
  const presentment = order.total_price_set?.presentment_money;
  return withTransaction(db.pool, async (client) => {
    if (!(await claimShopWebhook(client, projectId, ev.id))) return "already-processed";
    await storeOrder(
      client,
      projectId,
      shop.id,
      {
        orderId: order.id,
        email: order.email ?? null,
        leadId,
        cartToken: order.cart_token ?? null,
        checkoutToken: order.checkout_token ?? null,
        totalMinor: toMinorUnits(order.total_price, exponent),
        currency: order.currency,
        presentmentTotalMinor: presentment
          ? toMinorUnits(presentment.amount, currencyExponent(presentment.currency_code))
          : null,
        presentmentCurrency: presentment?.currency_code ?? order.presentment_currency ?? null,
        payments: (order.payment_gateway_names ?? (order.gateway ? [order.gateway] : [])).map((gateway) => ({
          gateway,
        })),
        test: order.test ?? false,
        cancelled: Boolean(order.cancelled_at),
        financialStatus: order.financial_status ?? null,
        placedAt,
      },
      { clickHours: shop.click_window_hours, openHours: shop.open_window_hours },
    );
    return "processed";
  });
}
