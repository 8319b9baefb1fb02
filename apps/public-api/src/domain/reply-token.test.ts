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
