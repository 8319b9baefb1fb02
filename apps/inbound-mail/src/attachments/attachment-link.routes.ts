import type { IncomingMessage, ServerResponse } from "node:http";
import { isUuid } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { presignGetObject, type S3ClientType } from "@emailsvc/provider";
import { ATTACHMENT_LINK_PATH, checkAttachmentLink } from "./domain/attachment-link";
import { findStoredAttachment } from "./attachments.repo";

export interface AttachmentLinkDeps {
  db: Db;
  s3: S3ClientType;
  bucket: string;
  secret: string;
  presignTtlSeconds: number;
  logger: Logger;
}

function answer(res: ServerResponse, status: number, error: string): void {
  const json = JSON.stringify({ success: false, error });
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" });
  res.end(json);
}

/**
 * GET /api/inbound/attachments/:id?expires=&sig= (the webhook's `download_url`): a valid, unexpired link answers
 * 302 to a presigned S3 URL made now (valid INBOUND_PRESIGN_TTL_SECONDS); 403 for a tampered link, 410 once
 * expired, 404 for an attachment that is gone. Served by inbound-mail, which owns the attachments, under its
 * public prefix `/api/inbound/` (routed by both gateways and the Ingress). No key: the link is the credential.
 */
export function attachmentLinkFastPath(
  deps: AttachmentLinkDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const url = req.url ?? "";
    if (!url.startsWith(ATTACHMENT_LINK_PATH)) return false;
    const u = new URL(url, "http://x");
    const id = u.pathname.slice(ATTACHMENT_LINK_PATH.length);
    void (async () => {
      if (!isUuid(id)) return answer(res, 404, "Attachment not found");
      const check = checkAttachmentLink(
        deps.secret,
        id,
        u.searchParams.get("expires") ?? undefined,
        u.searchParams.get("sig") ?? undefined,
      );
      if (check === "invalid") return answer(res, 403, "Invalid attachment link");
      if (check === "expired") return answer(res, 410, "Attachment link expired");
      const a = await findStoredAttachment(deps.db, id);
      if (!a) return answer(res, 404, "Attachment not found");
      const location = await presignGetObject(deps.s3, {
        bucket: deps.bucket,
        key: a.storage_key,
        expiresInSeconds: deps.presignTtlSeconds,
        filename: a.filename,
        contentType: a.content_type,
      });
      res.writeHead(302, { Location: location, "Cache-Control": "no-store" });
      res.end();
    })().catch((err: unknown) => {
      deps.logger.error({ err }, "attachment link failed");
      if (!res.headersSent) answer(res, 500, "Internal server error");
    });
    return true;
  };
}

export const ATTACHMENT_LINK_ROUTES = ["GET /api/inbound/attachments/:id"];
