import { clickUrl, signTrackedUrl, verifyTrackedUrl } from "./tracking-signature";

describe("tracked URL signatures", () => {
  const secret = "s".repeat(32);
  const id = "7f1c7f7e-1111-4a4a-9b9b-222222222222";

  it("verifies what it signed and nothing else", () => {
    const sig = signTrackedUrl(secret, id, "https://example.com/a?b=1");
    expect(verifyTrackedUrl(secret, id, "https://example.com/a?b=1", sig)).toBe(true);
    expect(verifyTrackedUrl(secret, id, "https://evil.example/a?b=1", sig)).toBe(false);
    expect(verifyTrackedUrl(secret, "other-id", "https://example.com/a?b=1", sig)).toBe(false);
    expect(verifyTrackedUrl("x".repeat(32), id, "https://example.com/a?b=1", sig)).toBe(false);
    expect(verifyTrackedUrl(secret, id, "https://example.com/a?b=1", undefined)).toBe(false);
  });

  it("builds a click URL whose query round-trips", () => {
    const url = new URL(clickUrl("http://localhost:8080/", secret, id, "https://example.com/?q=a&b=c"));
    expect(url.pathname).toBe(`/t/c/${id}`);
    expect(verifyTrackedUrl(secret, id, url.searchParams.get("url")!, url.searchParams.get("sig")!)).toBe(
      true,
    );
  });
});
