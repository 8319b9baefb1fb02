import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express, Request, Response } from "express";
import { verifyTrackedUrl } from "@emailsvc/content";
import type { Logger } from "@emailsvc/observability";

// 1×1 transparent GIF
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TrackingDeps {
  secret: string;
  logger: Logger;
  /** Queues the hit for recording (a group write); answering never waits for it. */
  record(activityId: string, kind: "open" | "click", url?: string): void;
}

/**
 * GET /t/o/:id answers the pixel at once (unknown ids too: never leak which ids exist) and records the hit
 * after answering; GET /t/c/:id redirects only to the URL whose signature we wrote at send time (never an
 * open redirect). Mounted ahead of request logging: these are the hottest routes.
 */
const PIXEL_PATH = /^\/t\/o\/([^/?]+)\/?(?:\?|$)/;

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

/**
 * GET /t/o/:id on plain node:http, ahead of Express: the pixel is the hottest request an email platform serves
 * (every open of every email), and Express's per-request set-up and router walk cost more than answering it.
 * Returns false for every other request, which Express then handles as usual.
 */
export function pixelFastPath(deps: Pick<TrackingDeps, "record">) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const m = PIXEL_PATH.exec(req.url ?? "");
    if (!m) return false;
    answerPixel(res);
    if (UUID.test(m[1]!)) deps.record(m[1]!, "open");
    return true;
  };
}

export function mountTracking(app: Express, deps: TrackingDeps): void {
  const record = deps.record;
  // Reached only when the fast path is not installed in front of the app.
  app.get("/t/o/:activityId", (req: Request<{ activityId: string }>, res: Response) => {
    answerPixel(res);
    if (UUID.test(req.params.activityId)) record(req.params.activityId, "open");
  });
  app.get("/t/c/:activityId", (req: Request<{ activityId: string }>, res: Response) => {
    const id = req.params.activityId;
    const url = typeof req.query.url === "string" ? req.query.url : "";
    const sig = typeof req.query.sig === "string" ? req.query.sig : undefined;
    if (!UUID.test(id) || !/^https?:\/\//i.test(url) || !verifyTrackedUrl(deps.secret, id, url, sig)) {
      res.status(400).json({ success: false, error: "Invalid or unsigned tracking link" });
      return;
    }
    res.redirect(302, url);
    record(id, "click", url);
  });
}
