import { SeenEmails } from "./seen-emails";

describe("SeenEmails", () => {
  it("answers 0 for a new email and the first line for a repeated one, across growth", () => {
    const seen = new SeenEmails(4);
    let wrong = 0;
    for (let i = 0; i < 50_000; i++) if (seen.add(`user${i}@example.com`, i + 2) !== 0) wrong++;
    expect(wrong).toBe(0);
    expect(seen.size).toBe(50_000);
    for (let i = 0; i < 50_000; i++) if (seen.add(`user${i}@example.com`, 999_999) !== i + 2) wrong++;
    expect(wrong).toBe(0);
    expect(seen.add("ada@example.com", 7)).toBe(0);
    expect(seen.add("ada@example.com", 9)).toBe(7);
    expect(seen.size).toBe(50_001);
  });
});
