import { asciiDomainAddress, customHeaders, isEmailAddress } from "./send-requests";

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
      ".a@x.org",
      "a.@x.org",
      "a@b..com",
      "a@x.org.",
      "a@localhost",
      "a@1.2.3.4",
    ])
      expect({ bad, ok: isEmailAddress(bad) }).toEqual({ bad, ok: false });
  });

  it("isEmailAddress answers the same for a domain it has checked before (domains are remembered)", () => {
    for (let round = 0; round < 2; round++) {
      expect(isEmailAddress("a@bücher.example")).toBe(true);
      expect(isEmailAddress("a..b@bücher.example")).toBe(false);
      expect(isEmailAddress("a@b..com")).toBe(false);
      expect(isEmailAddress("a@localhost")).toBe(false);
    }
    // past the cache's size, every answer still holds
    for (let i = 0; i < 2_500; i++) expect(isEmailAddress(`u${i}@d${i}.example`)).toBe(true);
    expect(isEmailAddress("a@b..com")).toBe(false);
    expect(isEmailAddress("a@bücher.example")).toBe(true);
  });
});

describe("custom_headers", () => {
  const error = (h: Record<string, string>) => customHeaders.safeParse(h).error?.issues[0]?.message;

  it("accepts ordinary headers, tabs included, up to one 998-character line", () => {
    expect(error({ "List-Unsubscribe": "<mailto:u@x.example>", "X-Tag": "a\tb" })).toBeUndefined();
    expect(error({ "X-Long": "v".repeat(998 - "X-Long: ".length) })).toBeUndefined();
  });

  it("refuses control characters, reserved or trace names, and lines past 998 characters", () => {
    for (const v of ["a\nb", "a\u000bb", "a\fb", "a\u001bb", "a\u0085b", "a\u2028b"])
      expect({ v, e: error({ "X-A": v }) }).toEqual({
        v,
        e: "custom_headers values must be single-line text without control characters",
      });
    for (const name of ["Content-Disposition", "Received", "Resent-Bcc", "X-SES-Configuration-Set", "bcc"])
      expect({ name, e: error({ [name]: "x" }) }).toEqual({
        name,
        e: "custom_headers contains an invalid or reserved header name",
      });
    expect(error({ "X-Long": "v".repeat(999 - "X-Long: ".length) })).toBe(
      'custom_headers: each header must fit one 998-character line (name, ": " and value)',
    );
  });
});
