import { normalizeLeadEmail } from "@emailsvc/contracts";
import { emailNormalizer, subscriptionOf } from "./read-row";

describe("emailNormalizer", () => {
  it("gives normalizeLeadEmail's result, cached per domain", () => {
    const normalize = emailNormalizer(2);
    for (const e of [
      " Ada@Example.COM ",
      "bob@münchen.de",
      "Bob@MÜNCHEN.de",
      "x.y+tag@sub.Example.org",
      "z@xn--mnchen-3ya.de",
      "a@b.co",
      "no-at-sign",
    ])
      expect(normalize(e)).toBe(normalizeLeadEmail(e));
  });
});

describe("subscriptionOf", () => {
  it("reads the usual spellings; an unsubscribed column asked the other way round", () => {
    expect(["Subscribed", "yes", "TRUE", "1", "opted in"].map((v) => subscriptionOf(v, false))).toEqual(
      Array(5).fill("subscribed"),
    );
    expect(["unsubscribed", "No", "false", "0", "cleaned"].map((v) => subscriptionOf(v, false))).toEqual(
      Array(5).fill("unsubscribed"),
    );
    expect(subscriptionOf("pending", false)).toBe("unknown");
    expect(subscriptionOf("", false)).toBeNull();
    expect(subscriptionOf("maybe", false)).toBeUndefined();
    expect(subscriptionOf("yes", true)).toBe("unsubscribed");
    expect(subscriptionOf("no", true)).toBeNull();
  });
});
