import { currencyCode, currencyExponent, moneyAmount, shopTopicOf, toMinorUnits } from "./shop";

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
});
