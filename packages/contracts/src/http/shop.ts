import { z } from "zod";

/**
 * E-commerce webhooks (spec 4.9 `/webhooks/shop/:topic`). The platform behind the neutral `x-shop-*` names sends
 * REST resources as JSON (orders, checkouts, carts); each topic's schema checks what its processing needs and lets
 * every other field through (the raw body is stored as received).
 */
export const SHOP_TOPICS = ["cart/update", "checkout/create", "order/create"] as const;
export type ShopTopic = (typeof SHOP_TOPICS)[number];

/** The platform names its topics in the plural (`orders/create`): both spellings are accepted. */
const TOPIC_ALIASES: Record<string, ShopTopic> = {
  "cart/update": "cart/update",
  "carts/update": "cart/update",
  "checkout/create": "checkout/create",
  "checkouts/create": "checkout/create",
  "order/create": "order/create",
  "orders/create": "order/create",
};

export function shopTopicOf(raw: string): ShopTopic | null {
  return TOPIC_ALIASES[raw.toLowerCase()] ?? null;
}

export const SHOP_LIMITS = {
  /** Far above any real order (the platform's own resources are a few hundred KB at most). */
  bodyBytes: 2 * 1024 * 1024,
  lineItems: 1_000,
  /** Abandoned-cart steps per shop. */
  abandonedSteps: 3,
} as const;

const currencies = new Set(
  (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf("currency"),
);

/** An ISO 4217 code the runtime knows (`XYZ` or `usd` are refused; codes are upper-cased). */
export const currencyCode = z
  .string()
  .transform((c) => c.toUpperCase())
  .refine((c) => currencies.has(c), { message: "is not an ISO 4217 currency code" });

/** Digits after the decimal point of a currency (JPY 0, USD 2, KWD 3). */
export function currencyExponent(code: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions()
    .maximumFractionDigits as number;
}

const DECIMAL = /^\d{1,15}(?:\.\d{1,6})?$/;

/** A non-negative decimal amount as the platform writes it ("409.94", or a number). Kept as its exact text. */
export const moneyAmount = z
  .union([z.string(), z.number()])
  .transform((v) => (typeof v === "number" ? String(v) : v.trim()))
  .refine((v) => DECIMAL.test(v), { message: 'must be a non-negative decimal amount such as "19.99"' });

/** "409.94" in USD → 40994 (exact: digits, never a float; extra digits round half up). */
export function toMinorUnits(amount: string, exponent: number): bigint {
  const [whole, frac = ""] = amount.split(".");
  const padded = (frac + "0".repeat(exponent + 1)).slice(0, exponent + 1);
  const units = BigInt(whole! + padded.slice(0, exponent));
  return Number(padded[exponent]) >= 5 ? units + 1n : units;
}

const id = z.union([z.string().min(1).max(255), z.number().int().nonnegative()]).transform(String);
const token = z.string().min(1).max(255);
const optionalText = (max: number) => z.string().max(max).nullish();

const timestamp = z.iso.datetime({ offset: true });

/**
 * The three topics' schemas, built with `object` for every object in them: `z.looseObject` keeps the fields a
 * schema does not name (processing reads the parsed payload), `z.object` checks the same fields and copies none
 * of the rest (the receiver only checks: it stores the raw body).
 */
function buildTopicSchemas(object: typeof z.looseObject | typeof z.object) {
  // one signature for both (the strict variant's output is never read)
  const obj = object as typeof z.looseObject;
  const lineItem = obj({
    title: optionalText(1_000),
    variant_title: optionalText(1_000),
    sku: optionalText(255),
    product_id: id.nullish(),
    variant_id: id.nullish(),
    quantity: z.number().int().min(0).max(1_000_000),
    price: moneyAmount,
    line_price: moneyAmount.optional(),
  });
  const lineItems = z.array(lineItem).max(SHOP_LIMITS.lineItems);
  const customer = obj({ first_name: optionalText(255), last_name: optionalText(255) }).nullish();
  const priceSet = obj({
    presentment_money: obj({ amount: moneyAmount, currency_code: currencyCode }),
  });
  return {
    lineItem,
    "cart/update": obj({
      token,
      line_items: lineItems,
      currency: currencyCode.nullish(),
      updated_at: timestamp.nullish(),
    }),
    "checkout/create": obj({
      token,
      cart_token: token.nullish(),
      email: z.email().max(320).nullish(),
      abandoned_checkout_url: z.url().max(2_000).nullish(),
      currency: currencyCode,
      total_price: moneyAmount,
      subtotal_price: moneyAmount.nullish(),
      line_items: lineItems,
      gateway: optionalText(255),
      payment_gateway_names: z.array(z.string().max(255)).max(20).nullish(),
      buyer_accepts_marketing: z.boolean().nullish(),
      created_at: timestamp.nullish(),
      customer,
    }),
    "order/create": obj({
      id,
      email: z.email().max(320).nullish(),
      cart_token: token.nullish(),
      checkout_token: token.nullish(),
      currency: currencyCode,
      total_price: moneyAmount,
      presentment_currency: currencyCode.nullish(),
      total_price_set: priceSet.nullish(),
      test: z.boolean().nullish(),
      cancelled_at: timestamp.nullish(),
      financial_status: optionalText(64),
      gateway: optionalText(255),
      payment_gateway_names: z.array(z.string().max(255)).max(20).nullish(),
      line_items: lineItems,
      created_at: timestamp.nullish(),
      customer,
    }),
  };
}

const loose = buildTopicSchemas(z.looseObject);

export const shopLineItem = loose.lineItem;
export type ShopLineItem = z.output<typeof shopLineItem>;
export const cartUpdatePayload = loose["cart/update"];
export const checkoutCreatePayload = loose["checkout/create"];
export const orderCreatePayload = loose["order/create"];

/** Each topic's payload, parsed for processing: the fields it needs checked, every other field kept. */
export const shopPayloadSchemas = {
  "cart/update": cartUpdatePayload,
  "checkout/create": checkoutCreatePayload,
  "order/create": orderCreatePayload,
} as const;

/**
 * The same checks for the receiver, which stores the raw body and only needs the verdict: the fields no schema
 * names are not copied into a parsed object (a quarter to a third of the validation's time on the platform's
 * order and checkout payloads).
 */
export const shopPayloadChecks = (() => {
  const strip = buildTopicSchemas(z.object);
  return {
    "cart/update": strip["cart/update"],
    "checkout/create": strip["checkout/create"],
    "order/create": strip["order/create"],
  } as const;
})();

export type CartUpdatePayload = z.output<typeof cartUpdatePayload>;
export type CheckoutCreatePayload = z.output<typeof checkoutCreatePayload>;
export type OrderCreatePayload = z.output<typeof orderCreatePayload>;

/**
 * A store's domain (`x-shop-shop-domain`, the admin API's `shop_domain`), lower-cased: letters, digits and hyphens
 * in two or more dot-separated labels. The receiver connects an unknown one (issue 43), so it must look like one.
 */
export const shopDomainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, "must be a domain name");

/**
 * Why an unsigned shop sends no abandoned-cart emails: the admin API shows it on the shop, and a step skipped for it
 * keeps it as its reason.
 */
export const UNSIGNED_ABANDONED_CART_OFF =
  "the shop has no webhook secret, so its checkouts arrive unsigned: anyone who knows the project id could post " +
  "one for any address. Set a secret (rotate-secret), or allow_unsigned_abandoned_cart on the shop";

/** Admin: connect a shop to a project. */
export const connectShopSchema = z.strictObject({
  shop_domain: shopDomainSchema,
  secret: z.string().min(8).max(500).nullish(),
  duplicate_answer: z.enum(["conflict", "ok"]).optional(),
  click_window_hours: z
    .number()
    .int()
    .min(0)
    .max(24 * 90)
    .optional(),
  open_window_hours: z
    .number()
    .int()
    .min(0)
    .max(24 * 90)
    .optional(),
  abandoned_steps_minutes: z
    .array(
      z
        .number()
        .int()
        .min(1)
        .max(60 * 24 * 30),
    )
    .max(SHOP_LIMITS.abandonedSteps)
    .optional(),
  abandoned_template_id: z.uuid().nullish(),
  abandoned_from_email: z.email().nullish(),
  abandoned_from_name: z.string().max(255).nullish(),
  /**
   * Abandoned-cart emails for checkouts that arrive unsigned (the shop has no secret). Off by default: anyone who
   * knows the project id can post an unsigned checkout for any address, and the email would go from the project's
   * domain. Turn it on only for a shop whose platform cannot sign, knowing that.
   */
  allow_unsigned_abandoned_cart: z.boolean().optional(),
});
export const updateShopSchema = connectShopSchema.omit({ shop_domain: true, secret: true }).partial();
/** Rotation: the old secret stays valid for `grace_minutes` (default 60: the platform takes up to an hour). */
export const rotateShopSecretSchema = z.strictObject({
  secret: z.string().min(8).max(500),
  grace_minutes: z
    .number()
    .int()
    .min(0)
    .max(60 * 24 * 7)
    .optional(),
});
