import { isReplyToken, newReplyToken } from "./reply-token";

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
