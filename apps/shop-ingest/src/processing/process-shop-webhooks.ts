import {
  cartUpdatePayload,
  checkoutCreatePayload,
  currencyExponent as exponentOfCurrency,
  orderCreatePayload,
  toMinorUnits,
  type ShopLineItem,
  type ShopTopic,
  type ProjectId,
} from "@emailsvc/contracts";
import {
  type Applied,
  applyCarts,
  applyCheckouts,
  applyOrders,
  attributeOrders,
  type CheckoutInput,
  type Db,
  findShopWebhooks,
  type OrderInput,
  roundsByKey,
  type ShopWebhookToProcess,
  type TrackItem,
  trackEvents,
} from "@emailsvc/db";

export type ProcessOutcome = "processed" | "already-processed" | "missing";

/** A queued message: which stored delivery to apply. */
export interface DeliveryRef {
  projectId: ProjectId;
  webhookEventId: string;
}

const exponents = new Map<string, number>();
/** Digits after the decimal point of a currency, remembered: Intl computes it in ~50 µs, several times a delivery. */
function currencyExponent(code: string): number {
  let exp = exponents.get(code);
  if (exp === undefined) exponents.set(code, (exp = exponentOfCurrency(code)));
  return exp;
}

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

type Stored = ShopWebhookToProcess & { shop_domain: string };

/**
 * The leads of the buyers' emails (source `shop`, created when missing; new leads are not opted in: ARCHITECTURE)
 * and their event (`checkout_started`, `order_placed`; section 4.7), keyed per delivery so a redelivery stores it
 * once. Two statements per project for the whole batch. Null where the delivery has no email.
 */
async function trackBuyers(
  db: Db,
  items: {
    ev: Stored;
    email: string | null | undefined;
    track: Omit<TrackItem["input"], "email"> & { key: string };
  }[],
): Promise<(string | null)[]> {
  const leads = new Array<string | null>(items.length).fill(null);
  const byProject = new Map<ProjectId, number[]>();
  items.forEach((it, i) => {
    if (!it.email) return;
    const list = byProject.get(it.ev.project_id);
    if (list) list.push(i);
    else byProject.set(it.ev.project_id, [i]);
  });
  for (const [projectId, indexes] of byProject) {
    const tracked = await trackEvents(
      db,
      projectId,
      indexes.map((i) => {
        const { key, ...input } = items[i]!.track;
        return { input: { ...input, email: items[i]!.email! }, key };
      }),
      { leadSource: "shop" },
    );
    indexes.forEach((i, k) => (leads[i] = tracked[k]!.recipient_id));
  }
  return leads;
}

/**
 * Applies a batch of stored deliveries of one topic: one read for the lot, then set-based statements (per project
 * for the buyers' leads and events, one for attribution, one that claims and applies), instead of some ten round
 * trips per delivery. Each statement claims its deliveries before applying them, so a redelivered message finds
 * its delivery done and changes nothing. Orders may come before their checkout (or carts after both): each topic
 * upserts by the platform's tokens and links what is already there. Resolves with one outcome per message.
 */
export async function processShopWebhooks(
  deps: { db: Db; stepUnitSeconds: number },
  topic: ShopTopic,
  refs: DeliveryRef[],
): Promise<ProcessOutcome[]> {
  const { db } = deps;
  const found = await findShopWebhooks(
    db,
    refs.map((r) => ({ projectId: r.projectId, id: r.webhookEventId })),
  );
  const outcomes = new Array<ProcessOutcome>(refs.length);
  const todo: { index: number; ev: Stored }[] = [];
  refs.forEach((r, index) => {
    const ev = found.get(r.webhookEventId);
    if (!ev) outcomes[index] = "missing";
    else if (ev.processed_at) outcomes[index] = "already-processed";
    else if (ev.shop_domain === null)
      outcomes[index] = "missing"; // disconnected since: nothing to apply it to
    else todo.push({ index, ev: ev as Stored });
  });
  if (!todo.length) return outcomes;

  const claimed = new Set<string>();
  const run = async <T>(
    items: Applied<T>[],
    key: ((t: Applied<T>) => string) | null,
    apply: (batch: Applied<T>[]) => Promise<Set<string>>,
  ) => {
    for (const round of key ? roundsByKey(items, key) : [items])
      for (const id of await apply(round)) claimed.add(id);
  };
  const ref = (ev: Stored) => ({ eventId: ev.id, projectId: ev.project_id, shopId: ev.shop_id });

  if (topic === "cart/update") {
    const carts = todo.map(({ ev }) => {
      const cart = cartUpdatePayload.parse(ev.payload);
      const items = lineItemsOf(cart.line_items, currencyExponent(cart.currency ?? "USD"));
      return {
        ...ref(ev),
        input: {
          token: cart.token,
          lineItems: items,
          totalMinor: items.reduce((s, i) => s + BigInt(i.line_price_minor), 0n),
          currency: cart.currency ?? null,
          updatedAt: cart.updated_at ? new Date(cart.updated_at) : null,
        },
      };
    });
    await run(
      carts,
      (c) => `${c.shopId}:${c.input.token}`,
      (b) => applyCarts(db, b),
    );
  } else if (topic === "checkout/create") {
    const parsed = todo.map(({ ev }) => {
      const co = checkoutCreatePayload.parse(ev.payload);
      return { ev, co, startedAt: co.created_at ? new Date(co.created_at) : ev.received_at };
    });
    const leads = await trackBuyers(
      db,
      parsed.map(({ ev, co, startedAt }) => ({
        ev,
        email: co.email,
        track: {
          event: "checkout_started",
          properties: {
            shop: ev.shop_domain,
            checkout_token: co.token,
            total_price: co.total_price,
            currency: co.currency,
          },
          timestamp: startedAt,
          key: `shop:${ev.shop_id}:checkout:${co.token}`,
        },
      })),
    );
    const checkouts: Applied<CheckoutInput>[] = parsed.map(({ ev, co, startedAt }, i) => {
      const exponent = currencyExponent(co.currency);
      // An unsigned checkout could have been posted by anyone who knows the project id, for any address: it starts
      // no abandoned-cart emails unless the operator allowed them for this shop.
      const first =
        ev.signed || ev.allow_unsigned_abandoned_cart ? ev.abandoned_steps_minutes?.[0] : undefined;
      return {
        ...ref(ev),
        input: {
          token: co.token,
          cartToken: co.cart_token ?? null,
          email: co.email ?? null,
          leadId: leads[i]!,
          recoveryUrl: co.abandoned_checkout_url ?? null,
          lineItems: lineItemsOf(co.line_items, exponent),
          totalMinor: toMinorUnits(co.total_price, exponent),
          subtotalMinor: co.subtotal_price ? toMinorUnits(co.subtotal_price, exponent) : null,
          currency: co.currency,
          gateways: co.payment_gateway_names ?? (co.gateway ? [co.gateway] : []),
          startedAt,
          firstStepSeconds: first === undefined ? null : first * deps.stepUnitSeconds,
        },
      };
    });
    await run(
      checkouts,
      (c) => `${c.shopId}:${c.input.token}`,
      (b) => applyCheckouts(db, b),
    );
  } else {
    const parsed = todo.map(({ ev }) => {
      const order = orderCreatePayload.parse(ev.payload);
      return { ev, order, placedAt: order.created_at ? new Date(order.created_at) : ev.received_at };
    });
    const leads = await trackBuyers(
      db,
      parsed.map(({ ev, order, placedAt }) => ({
        ev,
        email: order.email,
        track: {
          event: "order_placed",
          properties: {
            shop: ev.shop_domain,
            order_id: order.id,
            total_price: order.total_price,
            currency: order.currency,
            test: order.test ?? false,
          },
          timestamp: placedAt,
          key: `shop:${ev.shop_id}:order:${order.id}`,
        },
      })),
    );
    const inputs = parsed.map(({ ev, order, placedAt }, i): { ev: Stored; input: OrderInput } => {
      const exponent = currencyExponent(order.currency);
      const presentment = order.total_price_set?.presentment_money;
      return {
        ev,
        input: {
          orderId: order.id,
          email: order.email ?? null,
          leadId: leads[i]!,
          cartToken: order.cart_token ?? null,
          checkoutToken: order.checkout_token ?? null,
          totalMinor: toMinorUnits(order.total_price, exponent),
          currency: order.currency,
          presentmentTotalMinor: presentment
            ? toMinorUnits(presentment.amount, currencyExponent(presentment.currency_code))
            : null,
          presentmentCurrency: presentment?.currency_code ?? order.presentment_currency ?? null,
          payments: (order.payment_gateway_names ?? (order.gateway ? [order.gateway] : [])).map(
            (gateway) => ({ gateway }),
          ),
          test: order.test ?? false,
          cancelled: Boolean(order.cancelled_at),
          financialStatus: order.financial_status ?? null,
          placedAt,
          signed: ev.signed,
        },
      };
    });
    const attributions = await attributeOrders(
      db,
      inputs.map(({ ev, input }) => ({
        projectId: ev.project_id,
        order: input,
        clickHours: ev.click_window_hours!,
        openHours: ev.open_window_hours!,
      })),
    );
    await run(
      inputs.map(({ ev, input }, i) => ({ ...ref(ev), input: { ...input, attribution: attributions[i]! } })),
      null,
      (b) => applyOrders(db, b),
    );
  }
  for (const { index, ev } of todo) outcomes[index] = claimed.has(ev.id) ? "processed" : "already-processed";
  return outcomes;
}
