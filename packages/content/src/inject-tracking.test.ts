import { injectTracking } from "./inject-tracking";
import { verifyTrackedUrl } from "./tracking-signature";

describe("injectTracking", () => {
  const opts = { activityId: "act-1", baseUrl: "https://mail.example.com", secret: "k".repeat(32) };

  it("rewrites absolute links through a signed click URL and keeps others", () => {
    const html =
      '<html><body><a href="https://shop.example/p?a=1&amp;b=2">x</a> <a href="mailto:a@b.c">m</a> <a href=\'#top\'>t</a></body></html>';
    const out = injectTracking(html, opts);
    const href = /href="(https:\/\/mail\.example\.com\/t\/c\/[^"]+)"/.exec(out)![1]!.replace(/&amp;/g, "&");
    const u = new URL(href);
    expect(u.pathname).toBe("/t/c/act-1");
    expect(u.searchParams.get("url")).toBe("https://shop.example/p?a=1&b=2");
    expect(
      verifyTrackedUrl(opts.secret, "act-1", u.searchParams.get("url")!, u.searchParams.get("sig")!),
    ).toBe(true);
    expect(out).toContain('href="mailto:a@b.c"');
    expect(out).toContain("href='#top'");
  });

  it("puts the open pixel before </body>, or at the end without a body", () => {
    expect(injectTracking("<body><p>x</p></body>", opts)).toMatch(
      /<img src="https:\/\/mail\.example\.com\/t\/o\/act-1"[^>]*\/><\/body>$/,
    );
    expect(injectTracking("<p>x</p>", opts)).toMatch(
      /<p>x<\/p><img src="https:\/\/mail\.example\.com\/t\/o\/act-1"/,
    );
  });
});
