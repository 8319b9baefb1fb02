import { formatReplyAddress, isReplyToken, newReplyToken, parseReplyAddress } from "./reply-address";

test("tokens are 8 URL-safe characters and practically unique", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 5000; i++) {
    const t = newReplyToken();
    expect(isReplyToken(t)).toBe(true);
    expect(encodeURIComponent(t)).toBe(t);
    seen.add(t);
  }
  expect(seen.size).toBe(5000);
});

test("every character of the alphabet is drawn about equally often", () => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 9000; i++) for (const ch of newReplyToken()) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  expect(counts.size).toBe(36);
  // 72,000 characters: 2,000 expected per character; a biased draw (e.g. `byte % 36` without skipping) moves
  // the first 4 characters to about 2,250.
  for (const n of counts.values()) {
    expect(n).toBeGreaterThan(1800);
    expect(n).toBeLessThan(2200);
  }
});

describe("reply addresses (spec 4.9, 4.11)", () => {
  const pid = "3f0c5b1e-8a7d-4c2b-9e11-0a1b2c3d4e5f";
  const aid = "0192a7c4-1111-7abc-8def-001122334455";

  test("a token address round-trips, whatever case a mail server gave it", () => {
    const t = newReplyToken();
    const address = formatReplyAddress(t, "in.example.com");
    expect(address).toBe(`r-${t}@in.example.com`);
    expect(parseReplyAddress(address, "in.example.com")).toEqual({ form: "token", token: t });
    expect(parseReplyAddress(address.toUpperCase(), "IN.example.com")).toEqual({ form: "token", token: t });
  });

  test("the legacy return-path form gives the project and the activity", () => {
    expect(parseReplyAddress(`reply+${pid}-${aid}@in.example.com`, "in.example.com")).toEqual({
      form: "legacy",
      projectId: pid,
      activityId: aid,
    });
  });

  test("anything else is not ours", () => {
    for (const a of [
      "r-abcd1234@other.example.com",
      "r-abcd123@in.example.com",
      "r-abcd12345@in.example.com",
      "x-abcd1234@in.example.com",
      `reply+${pid}@in.example.com`,
      "r-abcd1234",
      "@in.example.com",
    ])
      expect(parseReplyAddress(a, "in.example.com")).toBeNull();
  });
});
