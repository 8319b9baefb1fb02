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

  it("signs the URL a browser would follow: every character reference in the href decoded", () => {
    const cases: [string, string][] = [
      ["https://shop.example/p?a=1&#38;b=2", "https://shop.example/p?a=1&b=2"],
      ["https://shop.example/q?a=1&#x26;b=2", "https://shop.example/q?a=1&b=2"],
      ["https://shop.example/r?x=&quot;y&quot;", 'https://shop.example/r?x="y"'],
      // a legacy name followed by '=' is not a reference inside an attribute (HTML's rule)
      ["https://shop.example/t?a=1&copy=2", "https://shop.example/t?a=1&copy=2"],
    ];
    for (const [written, followed] of cases) {
      const out = injectTracking(`<a href="${written}">x</a>`, opts);
      const href = /href="([^"]+)"/.exec(out)![1]!.replace(/&amp;/g, "&");
      expect(new URL(href).searchParams.get("url")).toBe(followed);
    }
  });

  it("puts the open pixel before </body>, or at the end without a body", () => {
    expect(injectTracking("<body><p>x</p></body>", opts)).toMatch(
      /<img src="https:\/\/mail\.example\.com\/t\/o\/act-1"[^>]*\/><\/body>$/,
    );
    expect(injectTracking("<p>x</p>", opts)).toMatch(
      /<p>x<\/p><img src="https:\/\/mail\.example\.com\/t\/o\/act-1"/,
    );
  });

  it("rewrites the href however it is quoted, and only the href attribute itself", () => {
    const followed = (html: string) =>
      [...injectTracking(html, opts).matchAll(/href="(https:\/\/mail\.example\.com\/t\/c\/[^"]+)"/gi)].map(
        (m) => new URL(m[1]!.replace(/&amp;/g, "&")).searchParams.get("url"),
      );
    expect(followed("<a href=https://a.example/x?y=1>x</a>")).toEqual(["https://a.example/x?y=1"]);
    expect(followed(`<a href="https://a.example/it's">x</a>`)).toEqual(["https://a.example/it's"]);
    expect(followed(`<a href='https://a.example/"q"'>x</a>`)).toEqual(['https://a.example/"q"']);
    expect(followed('<a href="  https://a.example/sp  ">x</a>')).toEqual(["https://a.example/sp"]);
    expect(followed('<A HREF="https://a.example/up">x</A>')).toEqual(["https://a.example/up"]);
    const decoy = injectTracking(
      '<a data-href="https://decoy.example" href="https://real.example">x</a>',
      opts,
    );
    expect(decoy).toContain('data-href="https://decoy.example"');
    const tracked = /\shref="([^"]+)"/.exec(decoy)![1]!.replace(/&amp;/g, "&");
    expect(new URL(tracked).searchParams.get("url")).toBe("https://real.example");
  });

  it("puts the pixel before the document's </body>, not one inside a comment", () => {
    const out = injectTracking("<body><!-- </body> --><p>x</p></body>", opts);
    expect(out).toMatch(
      /^<body><!-- <\/body> --><p>x<\/p><img src="https:\/\/mail\.example\.com\/t\/o\/act-1"[^>]*\/><\/body>$/,
    );
  });

  it("takes linear time on long runs of spaces inside an href", () => {
    const html = `<a href="https://a.example/${" ".repeat(200_000)}x">x</a><a href="${" ".repeat(200_000)}">y</a>`;
    const t = performance.now();
    injectTracking(html, opts);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});
