import { asciiDomainAddress, isEmailAddress } from "./send-requests";

describe("addresses", () => {
  it("asciiDomainAddress: the domain lower-cased in punycode, the local part as given", () => {
    expect(asciiDomainAddress("Z@Bücher.Example")).toBe("Z@xn--bcher-kva.example");
    expect(asciiDomainAddress("z@xn--bcher-kva.example")).toBe("z@xn--bcher-kva.example");
    expect(asciiDomainAddress("a.b@Example.ORG")).toBe("a.b@example.org");
  });

  it("isEmailAddress refuses lists, control characters, non-ASCII local parts, empty labels and trailing dots", () => {
    expect(isEmailAddress("z@bücher.example")).toBe(true);
    expect(isEmailAddress("o'neil+tag/x=y{1}@example.org")).toBe(true);
    for (const bad of [
      "a@x.org,x",
      "a\u0001b@x.org",
      "a\u0085b@x.org",
      "a\u2028b@x.org",
      "é@x.org",
      "a@b..com",
      "a@x.org.",
      "a@localhost",
      "a@1.2.3.4",
    ])
      expect({ bad, ok: isEmailAddress(bad) }).toEqual({ bad, ok: false });
  });
});
