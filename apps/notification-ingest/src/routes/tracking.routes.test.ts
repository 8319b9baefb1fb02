import type { IncomingMessage, ServerResponse } from "node:http";
import { pixelFastPath } from "./tracking.routes";

const ID = "3f0c6a3e-2b8e-4f4a-9a57-0c3c1b2d4e5f";

function hit(method: string, url: string) {
  const recorded: [string, string][] = [];
  const res = { status: 0, ended: false } as { status: number; ended: boolean };
  const fake = {
    writeHead: (status: number) => void (res.status = status),
    end: () => void (res.ended = true),
  } as unknown as ServerResponse;
  const handled = pixelFastPath({ record: (id, kind) => void recorded.push([id, kind]) })(
    { method, url } as IncomingMessage,
    fake,
  );
  return { handled, recorded, res };
}

describe("pixel fast path", () => {
  it("answers GET /t/o/:id (query string or trailing slash too) and records a valid id", () => {
    for (const url of [`/t/o/${ID}`, `/t/o/${ID}?utm=x`, `/t/o/${ID}/`]) {
      const r = hit("GET", url);
      expect(r).toEqual({ handled: true, recorded: [[ID, "open"]], res: { status: 200, ended: true } });
    }
  });

  it("answers an id that is not a UUID without recording it (never leak which ids exist)", () => {
    expect(hit("GET", "/t/o/not-an-id")).toMatchObject({ handled: true, recorded: [] });
  });

  it("leaves every other request to Express", () => {
    for (const [method, url] of [
      ["POST", `/t/o/${ID}`],
      ["GET", `/t/c/${ID}?url=https://x.example`],
      ["GET", "/t/o/"],
      ["GET", `/t/o/${ID}/extra`],
      ["GET", "/healthz"],
    ] as const) {
      expect(hit(method, url)).toMatchObject({ handled: false, recorded: [] });
    }
  });
});
