import fs from "node:fs";
import path from "node:path";

const corpusDir = path.resolve(__dirname, "../../../shared/corpus/shop");
const corpus = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(corpusDir, `shopify_python_api.${name}.json`), "utf8")) as Record<
    string,
    unknown
  >;
const cart = corpus("carts-update");
const checkout = corpus("checkouts-create");
const order = corpus("orders-create");

/**
 * The i-th shop webhook of a run: a cart update, a checkout or an order of the i/3-th buyer, in the platform's
 * shapes (the shared corpus's real payloads with this run's tokens, ids and addresses).
 */
export function shopWebhook(run: string, i: number, buyers = 5000): { topic: string; raw: string } {
  const n = Math.floor(i / 3);
  const cartToken = `cart-${run}-${n}`;
  const email = `shop-${run}-${n % buyers}@example.org`;
  const now = new Date().toISOString();
  switch (i % 3) {
    case 0:
      return { topic: "cart/update", raw: JSON.stringify({ ...cart, token: cartToken, updated_at: now }) };
    case 1:
      return {
        topic: "checkout/create",
        raw: JSON.stringify({
          ...checkout,
          token: `ck-${run}-${n}`,
          cart_token: cartToken,
          email,
          created_at: now,
        }),
      };
    default:
      return {
        topic: "order/create",
        raw: JSON.stringify({
          ...order,
          id: `${run}-${n}`,
          email,
          cart_token: cartToken,
          checkout_token: `ck-${run}-${n}`,
          created_at: now,
        }),
      };
  }
}
