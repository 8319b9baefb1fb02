import { buildDnsRecords, domainStatus } from "./dns-records";
import { emailDomain, parseDomain } from "./domain-name";

describe("parseDomain", () => {
  it.each([
    ["Example.COM.", "example.com", "example.com"],
    ["bücher.example", "xn--bcher-kva.example", "bücher.example"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example", "bücher.example"],
  ])("%s → %s / %s", (input, ascii, unicode) => {
    expect(parseDomain(input)).toEqual({ ascii, unicode });
  });
  it.each([
    "",
    "localhost",
    "a..b",
    "-a.com",
    "a-.com",
    "exa mple.com",
    "a@b.com",
    "1.2.3.4",
    `${"a".repeat(64)}.com`,
    42,
  ])("refuses %s", (d) => {
    expect(parseDomain(d)).toBeNull();
  });
  it("reads the domain of an address", () => {
    expect(emailDomain("Me@Bücher.example")).toEqual({
      ascii: "xn--bcher-kva.example",
      unicode: "bücher.example",
    });
  });
});

describe("buildDnsRecords", () => {
  it("gives exactly the seven records of spec 4.10", () => {
    const r = buildDnsRecords({
      asciiDomain: "example.com",
      verificationToken: "tok",
      dkimTokens: ["a", "b", "c"],
      region: "us-east-1",
    });
    expect(r).toEqual([
      { type: "TXT", name: "_amazonses", value: "tok", purpose: "ses_verification" },
      { type: "CNAME", name: "a._domainkey", value: "a.dkim.amazonses.com", purpose: "dkim" },
      { type: "CNAME", name: "b._domainkey", value: "b.dkim.amazonses.com", purpose: "dkim" },
      { type: "CNAME", name: "c._domainkey", value: "c.dkim.amazonses.com", purpose: "dkim" },
      { type: "TXT", name: "@", value: "v=spf1 include:amazonses.com ~all", purpose: "spf" },
      {
        type: "TXT",
        name: "_dmarc",
        value: "v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@example.com",
        purpose: "dmarc",
      },
      {
        type: "CNAME",
        name: "bounce",
        value: "feedback-smtp.us-east-1.amazonses.com",
        purpose: "return_path",
      },
    ]);
  });
  it("derives the status", () => {
    expect(
      domainStatus({
        domainVerified: true,
        dkimVerified: true,
        mailFromVerified: false,
        providerFailed: false,
      }),
    ).toBe("verified");
    expect(
      domainStatus({
        domainVerified: true,
        dkimVerified: false,
        mailFromVerified: false,
        providerFailed: false,
      }),
    ).toBe("partially_verified");
    expect(
      domainStatus({
        domainVerified: false,
        dkimVerified: false,
        mailFromVerified: false,
        providerFailed: true,
      }),
    ).toBe("failed");
    expect(
      domainStatus({
        domainVerified: false,
        dkimVerified: false,
        mailFromVerified: false,
        providerFailed: false,
      }),
    ).toBe("pending");
  });
});
