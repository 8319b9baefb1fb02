import type { IncomingMessage, ServerResponse } from "node:http";
import { clickUrl } from "@emailsvc/content";
import { trackingFastPath } from "./tracking.routes";

const ID = "3f0c6a3e-2b8e-4f4a-9a57-0c3c1b2d4e5f";
const SECRET = "tracking-secret";

function hit(method: string, url: string) {
  const recorded: (string | undefined)[][] = [];
  const res = { status: 0, ended: false, headers: {} } as {
    status: number;
    ended: boolean;
    headers: Record<string, unknown>;
  };
  const fake = {
    writeHead: (status: number, headers: Record<string, unknown>) => {
      res.status = status;
      res.headers = headers;
    },
    end: () => void (res.ended = true),
  } as unknown as ServerResponse;
  const handled = trackingFastPath({
    secret: SECRET,
    record: (id, kind, target) => void recorded.push(target === undefined ? [id, kind] : [id, kind, target]),
  })({ method, url } as IncomingMessage, fake);
  return { handled, recorded, res };
}

/** The path and query of a click link as the send-worker writes it. */
const clickPath = (id: string, target: string) => clickUrl("", SECRET, id, target);

describe("tracking fast path", () => {
  it("answers GET /t/o/:id (query string or trailing slash too) and records a valid id", () => {
    for (const url of [`/t/o/${ID}`, `/t/o/${ID}?utm=x`, `/t/o/${ID}/`]) {
      const r = hit("GET", url);
      expect(r).toMatchObject({ handled: true, recorded: [[ID, "open"]], res: { status: 200, ended: true } });
      expect(r.res.headers).toMatchObject({
        "Content-Type": "image/gif",
        "Cache-Control": expect.stringMatching(/no-store/),
      });
    }
  });

  it("answers a pixel id that is not a UUID without recording it (never leak which ids exist)", () => {
    expect(hit("GET", "/t/o/not-an-id")).toMatchObject({ handled: true, recorded: [] });
  });

  it("redirects a signed click to its URL and records it with the URL", () => {
    const target = "https://shop.example/p?a=1&b=two words#top";
    const r = hit("GET", clickPath(ID, target));
    expect(r).toMatchObject({
      handled: true,
      recorded: [[ID, "click", target]],
      res: { status: 302, ended: true },
    });
    expect(r.res.headers.Location).toBe("https://shop.example/p?a=1&b=two%20words#top");
  });

  it("records a signed click whose URL holds a NUL as the redirect spells it (PostgreSQL text holds no NUL)", () => {
    const r = hit("GET", clickPath(ID, "https://shop.example/a\u0000b"));
    expect(r).toMatchObject({
      recorded: [[ID, "click", "https://shop.example/a%00b"]],
      res: { status: 302 },
    });
    expect(r.res.headers.Location).toBe("https://shop.example/a%00b");
  });

  it("refuses with 400 a click whose URL we did not sign, and records nothing", () => {
    const signed = clickPath(ID, "https://shop.example/");
    const sig = new URL(signed, "http://x").searchParams.get("sig")!;
    for (const url of [
      `/t/c/${ID}?url=${encodeURIComponent("https://evil.example/")}&sig=${sig}`, // another URL, same signature
      `/t/c/${ID}?url=${encodeURIComponent("https://shop.example/")}`, // no signature
      `${signed}&url=${encodeURIComponent("https://evil.example/")}`, // a second url
      clickPath("not-an-id", "https://shop.example/"),
      clickPath(ID, "javascript:alert(1)"), // signed, but not http(s)
      `/t/c/${ID}`,
    ]) {
      const r = hit("GET", url);
      expect(r).toMatchObject({ handled: true, recorded: [], res: { status: 400, ended: true } });
    }
  });

  it("leaves every other request to Express", () => {
    for (const [method, url] of [
      ["POST", `/t/o/${ID}`],
      ["POST", `/t/c/${ID}?url=https://x.example`],
      ["GET", "/t/o/"],
      ["GET", `/t/o/${ID}/extra`],
      ["GET", "/t/x/abc"],
      ["GET", "/healthz"],
    ] as const) {
      expect(hit(method, url)).toMatchObject({ handled: false, recorded: [] });
    }
  });
});
