import { Router } from "express";
import { z } from "zod";
import type { Db } from "@emailsvc/db";
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
      const { rows } = await deps.db.pool.query(
        `SELECT id, ses_message_id, message_id, from_email, recipient, subject, kind, suspicious, verdicts, size, received_at
           FROM inbound_messages WHERE project_id IS NULL ORDER BY received_at DESC LIMIT $1`,
        [q.limit],
      );
      return void res.json({ success: true, status: q.status, messages: rows });
    }
    const { rows } = await deps.db.pool.query(
      `SELECT id, sns_message_id, ses_message_id, recipients, source, bucket_name, object_key, size, error,
              inbound_message_id, received_at, processed_at
         FROM inbound_notifications WHERE status = $1 ORDER BY received_at DESC LIMIT $2`,
      [q.status, q.limit],
    );
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
