import { Router } from "express";
import { z } from "zod";
import { type Db, listInboundNotifications, listUnmatchedInbound } from "@emailsvc/db";
import { parseInput } from "@emailsvc/http";

/**
 * Received mail the platform could not hand to a project, for the operator: replies that matched no send or
 * thread (`unmatched`: kept, never forwarded), and notifications that stored no reply (`refused`: over the size
 * limit and bounced; `failed`: unparseable, or naming another bucket; `duplicate`).
 */
const query = z.strictObject({
  status: z.enum(["unmatched", "refused", "failed", "duplicate"]).default("unmatched"),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export function adminInboundRouter(deps: { db: Db }): Router {
  const r = Router();
  r.get("/inbound", async (req, res) => {
    const q = parseInput(query, req.query);
    if (q.status === "unmatched") {
      const messages = await listUnmatchedInbound(deps.db, q.limit);
      return void res.json({ success: true, status: q.status, messages });
    }
    const rows = await listInboundNotifications(deps.db, q.status, q.limit);
    res.json({ success: true, status: q.status, notifications: rows });
  });
  return r;
}

/** Its entry in the admin API's OpenAPI document. */
export function inboundPaths(ok: (description: string) => { description: string }) {
  return {
    "/admin/inbound": {
      get: {
        summary:
          "Received mail not handed to a project: unmatched replies (kept, never forwarded), or notifications refused (too large, bounced), failed (unparseable) or duplicate",
        parameters: [
          {
            name: "status",
            in: "query",
            required: false,
            schema: { type: "string", enum: ["unmatched", "refused", "failed", "duplicate"] },
          },
          {
            name: "limit",
            in: "query",
            required: false,
            schema: { type: "integer", minimum: 1, maximum: 200 },
          },
        ],
        responses: { 200: ok("messages or notifications, newest first") },
      },
    },
  };
}
