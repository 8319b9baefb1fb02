import { replyText } from "./reply-text";

/**
 * Issue 49: text that makes a backtracking pattern take the square or cube of its length. Before the fix, the
 * shapes below took from 4 s (32 KB of spaces) to minutes (150 KB of spaces, " on at" repeated). Each call now
 * has a fixed budget: the parser's own budget (REPLY_LIMITS.parserBudgetMs) plus linear work, with room for a
 * busy machine.
 */
const BUDGET_MS = 500;

function timed(text: string): { ms: number; out: string } {
  const t = process.hrtime.bigint();
  const out = replyText(text);
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, out };
}

describe("replyText on hostile text answers within a fixed budget", () => {
  it.each<[string, string, (out: string) => void]>([
    [
      "a 32 KB line of spaces before a word",
      `${" ".repeat(32 * 1024)}Thanks`,
      (out) => expect(out).toBe("Thanks"),
    ],
    [
      "150 KB of one line (spaces, then a word)",
      `${" ".repeat(150 * 1024)}Thanks`,
      (out) => expect(out).toBe("Thanks"),
    ],
    [
      "an Outlook `From` followed by 16 KB of spaces",
      `From${" ".repeat(16 * 1024)}x`,
      (out) => expect(out).toMatch(/^From {16384}x$/),
    ],
    [
      '" on at" repeated on one 6 KB line',
      " on at".repeat(1000),
      (out) => expect(out).toBe(" on at".repeat(1000).trim()),
    ],
    [
      '" on at" repeated on 64 lines of 1,000 characters (the parser runs out of its budget)',
      `Thanks\n${(" on at".repeat(166) + "\n").repeat(64)}`,
      (out) => expect(out.startsWith("Thanks\n on at on at")).toBe(true),
    ],
    [
      "deep `>` quoting: 2,000 levels, each line ending in a run of 20,000 `>`",
      `Thanks\n\n${`${"> ".repeat(2000)}x${">".repeat(20_000)}\n`.repeat(3)}`,
      (out) => expect(out.startsWith("Thanks")).toBe(true),
    ],
    [
      "a run of 100,000 `~` inside a line",
      `a${"~".repeat(100_000)}b`,
      (out) => expect(out).toBe(`a${"~".repeat(100_000)}b`),
    ],
  ])("%s", (_name, text, check) => {
    const { ms, out } = timed(text);
    check(out);
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it("still finds the quote header above a long reply, and keeps a long line it does not inspect", () => {
    const long = "word ".repeat(400).trim(); // 2,000 characters
    const out = replyText(`Thanks\n${long}\n\nOn Mon, Jan 1, 2024 at 10:00 AM Bob <b@x.com> wrote:\n> old\n`);
    expect(out).toBe(`Thanks\n${long}`);
  });

  it("looks at the first 64 KB only: with no quote header in them, the whole text is the reply", () => {
    const text = `${"line of a long reply\n".repeat(4000)}On Mon, Jan 1, 2024 at 10:00 AM Bob <b@x.com> wrote:\n> old`;
    expect(text.length).toBeGreaterThan(64 * 1024);
    expect(replyText(text)).toBe(text);
  });
});

/** A small PRNG with a fixed seed: the same cases on every run, and a failure names its seed. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The pieces the patterns look for, and the characters their quantifiers repeat.
const PIECES = [
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  ">",
  "> ",
  "~",
  "-",
  "--",
  "_",
  "*",
  ":",
  "@",
  "<",
  "(",
  "1",
  "2024",
  "On ",
  " on ",
  " at ",
  "wrote:",
  " wrote",
  "From:",
  "From",
  "Sent:",
  "To:",
  "Subject:",
  "Le ",
  "écrit",
  "Am ",
  "schrieb",
  "a@b.c",
  "<a@b.c>",
  "-----Original Message-----",
  "Sent from my",
  "Regards",
  "x",
  "Thanks",
  "In data ",
  "scritto:",
  "Op ",
  "schreef",
  "W dniu ",
  "pisze",
  "Den ",
  "skrev",
  "20",
];

describe("replyText fuzz: generated text, each call within the budget", () => {
  it("200 generated replies up to 40 KB: none takes longer than the budget, none throws", () => {
    const slow: string[] = [];
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = prng(seed);
      // runs of one piece (long spaces, repeated " on at") mixed with random pieces
      const parts: string[] = [];
      let length = 0;
      const target = Math.floor(rnd() * 40_000);
      while (length < target) {
        const piece = PIECES[Math.floor(rnd() * PIECES.length)]!;
        const times = rnd() < 0.2 ? 1 + Math.floor(rnd() * 4000) : 1;
        const part = piece.repeat(times);
        parts.push(part);
        length += part.length;
      }
      const { ms, out } = timed(parts.join(""));
      expect(typeof out).toBe("string");
      if (ms > BUDGET_MS) slow.push(`seed ${seed}: ${Math.round(ms)} ms`);
    }
    expect(slow).toEqual([]);
  });
});
