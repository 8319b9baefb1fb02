import {
  currencyCode,
  currencyExponent,
  moneyAmount,
  shopPayloadChecks,
  shopPayloadSchemas,
  SHOP_TOPICS,
  shopTopicOf,
  toMinorUnits,
} from "./shop";

describe("shop money", () => {
  it("decimal strings become exact minor units per currency exponent, half up", () => {
    expect(toMinorUnits("409.94", 2)).toBe(40994n);
    expect(toMinorUnits("0.1", 2)).toBe(10n);
    expect(toMinorUnits("19", 2)).toBe(1900n);
    expect(toMinorUnits("1.005", 2)).toBe(101n);
    expect(toMinorUnits("1.004", 2)).toBe(100n);
    expect(toMinorUnits("1500", 0)).toBe(1500n);
    expect(toMinorUnits("1.2345", 3)).toBe(1235n);
    expect(toMinorUnits("999999999999999.99", 2)).toBe(99999999999999999n);
  });
  it("currencies: ISO 4217 only, exponent from the runtime's data", () => {
    expect(currencyCode.safeParse("usd").data).toBe("USD");
    expect(currencyCode.safeParse("XYZ").success).toBe(false);
    expect(currencyCode.safeParse("").success).toBe(false);
    expect([currencyExponent("USD"), currencyExponent("JPY"), currencyExponent("KWD")]).toEqual([2, 0, 3]);
  });
  it("amounts: non-negative decimals only", () => {
    for (const ok of ["0", "19.99", 19.99, "  5.00 "]) expect(moneyAmount.safeParse(ok).success).toBe(true);
    for (const bad of ["-1.00", "1e5", "abc", "", "1.2.3", -3, Number.NaN])
      expect(moneyAmount.safeParse(bad).success).toBe(false);
  });
  it("topics: the spec's singular names and the platform's plural ones", () => {
    expect(shopTopicOf("orders/create")).toBe("order/create");
    expect(shopTopicOf("cart/update")).toBe("cart/update");
    expect(shopTopicOf("orders/delete")).toBeNull();
  });
  it("the receiver's checks give the verdicts and errors of processing's schemas, and keep no other field", () => {
    const item = { title: "Hat", quantity: 1, price: "10.00", vendor: "x" };
    const good = {
      "cart/update": { token: "c1", line_items: [item], note: null, currency: "usd" },
      "checkout/create": {
        token: "k1",
        currency: "USD",
        total_price: "10.00",
        line_items: [item],
        customer: { first_name: "A", tags: "" },
        billing_address: {},
      },
      "order/create": {
        id: 1,
        currency: "EUR",
        total_price: 5,
        line_items: [item],
        total_price_set: { presentment_money: { amount: "5.00", currency_code: "EUR" }, shop_money: {} },
        name: "#1001",
      },
    };
    const bad = [
      { token: "", line_items: [] },
      { token: "t", line_items: [{ ...item, quantity: -1 }] },
      { token: "t", line_items: [{ ...item, price: "1e3" }], currency: "XYZ" },
      { id: 1, currency: "USD", total_price: "1", line_items: [], email: "not-an-email" },
      {
        id: 1,
        currency: "USD",
        total_price: "1",
        line_items: [],
        total_price_set: { presentment_money: {} },
      },
      { token: "k", currency: "USD", total_price: "1", line_items: "no", customer: { first_name: 3 } },
    ];
    for (const topic of SHOP_TOPICS) {
      const loose = shopPayloadSchemas[topic].safeParse(good[topic]);
      const checked = shopPayloadChecks[topic].safeParse(good[topic]);
      expect([loose.success, checked.success]).toEqual([true, true]);
      // every good payload has a line item with a `vendor`, a field no schema names
      expect(JSON.stringify(loose.data)).toContain('"vendor"');
      expect(JSON.stringify(checked.data)).not.toContain('"vendor"');
      for (const b of bad) {
        const l = shopPayloadSchemas[topic].safeParse(b);
        const c = shopPayloadChecks[topic].safeParse(b);
        expect(c.success).toBe(l.success);
        expect(c.error?.issues).toEqual(l.error?.issues);
      }
    }
  });
});
