import { isUuid } from "@emailsvc/contracts";
import type { IncomingMessage, ServerResponse } from "node:http";
import encodeUrl from "encodeurl";
import { verifyTrackedUrl } from "@emailsvc/content";

// 1×1 transparent GIF
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

export interface TrackingDeps {
  secret: string;
  /** Queues the hit for recording (a group write); answering never waits for it. */
  record(activityId: string, kind: "open" | "click", url?: string): void;
}

/**
 * GET /t/o/:id answers the pixel at once (unknown ids too: never leak which ids exist) and records the hit
 * after answering; GET /t/c/:id redirects only to the URL whose signature we wrote at send time (never an
 * open redirect). Both are served on plain node:http, ahead of Express: they are the hottest requests an email
 * platform serves (every open and click of every email), and Express's per-request set-up, router walk and
 * query parser cost more than answering them.
 */
/** The routes this fast path serves, for the route-coverage check against the public OpenAPI document. */
export const TRACKING_ROUTES = ["GET /t/o/:id", "GET /t/c/:id"];
const TRACKING_PATH = /^\/t\/([oc])\/([^/?]+)\/?(?:\?|$)/;

function answerPixel(res: ServerResponse): void {
  res.writeHead(200, {
    "Content-Type": "image/gif",
    "Content-Length": GIF.length,
    "Cache-Control": "no-store, no-cache, must-revalidate, max-age=0",
    Pragma: "no-cache",
    Expires: "0",
  });
  res.end(GIF);
}

const REFUSED = Buffer.from(JSON.stringify({ success: false, error: "Invalid or unsigned tracking link" }));

/** The signed target of a click link: exactly one `url` (http or https) and its signature, or null. */
function signedTarget(secret: string, activityId: string, rawUrl: string): string | null {
  if (!isUuid(activityId)) return null;
  const q = rawUrl.indexOf("?");
  const params = new URLSearchParams(q < 0 ? "" : rawUrl.slice(q + 1));
  const urls = params.getAll("url");
  const sigs = params.getAll("sig");
  if (urls.length !== 1 || sigs.length > 1) return null;
  const url = urls[0]!;
  if (!/^https?:\/\//i.test(url) || !verifyTrackedUrl(secret, activityId, url, sigs[0])) return null;
  return url;
}

/**
 * Serves GET/HEAD /t/o/:id and /t/c/:id; returns false for every other request, which Express then handles.
 * Only a GET is an open or a click: a HEAD (a link scanner or proxy probing the URL) loads no image and follows
 * no link, so it gets the same answer and records nothing.
 */
export function trackingFastPath(deps: Pick<TrackingDeps, "record" | "secret">) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const url = req.url ?? "";
    const m = TRACKING_PATH.exec(url);
    if (!m) return false;
    const id = m[2]!;
    const counts = req.method === "GET";
    if (m[1] === "o") {
      answerPixel(res);
      if (counts && isUuid(id)) deps.record(id, "open");
      return true;
    }
    const target = signedTarget(deps.secret, id, url);
    if (!target) {
      res.writeHead(400, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": REFUSED.length,
      });
      res.end(REFUSED);
      return true;
    }
    res.writeHead(302, { Location: encodeUrl(target), "Cache-Control": "no-store", "Content-Length": 0 });
    res.end();
    // Recorded as the redirect spells it: PostgreSQL's text holds no NUL (a signed URL's `%00` decodes to one), and
    // the hit failed its batch's insert, which the writer retried, every later hit behind it, until a restart.
    if (counts) deps.record(id, "click", target.replaceAll("\0", "%00"));
    return true;
  };
}
