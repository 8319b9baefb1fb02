import type { ProjectId } from "@emailsvc/contracts";
import { randomUUID } from "node:crypto";
import type { Db, ResolveRepo } from "@emailsvc/db";
import type { Logger, Metrics } from "@emailsvc/observability";
import {
  getObjectUpTo,
  putObject,
  type S3ClientType,
  sendBounce,
  type SesV1Client,
} from "@emailsvc/provider";
import { attachmentLink } from "../attachments/domain/attachment-link";
import { classifyKind } from "./domain/classify";
import { sanitizeFilename } from "../attachments/domain/filename";
import { bracketed } from "./domain/message-ids";
import { parseMime, type ParsedReply, UnparseableMessageError } from "./domain/parse-mime";
import { replyText } from "./domain/reply-text";
import { normalizeSubject } from "./domain/subject";
import { buildInboundWebhookBody, type WebhookAttachment } from "./domain/webhook-body";
import { finishNotification, loadNotification, type StoredNotification } from "./notifications.repo";
import { type NewAttachment, storeInboundMessage } from "./messages.repo";
import { type Resolution, resolveThread } from "./resolve-thread";

export interface ProcessDeps {
  db: Db;
  s3: S3ClientType;
  sesV1: SesV1Client;
  logger: Logger;
  resolve: ResolveRepo;
  kickOutbox(): void;
  counters?: {
    processed: ReturnType<Metrics["counter"]>;
    /** the receiver's answers that said `queued` (it could not finish before answering), by reason */
    deferred?: ReturnType<Metrics["counter"]>;
  };
  config: {
    inboundDomain: string;
    bucket: string;
    attachmentsBucket: string;
    maxBytes: number;
    bounceSender: string;
    publicBaseUrl: string;
    linkSecret: string;
    linkTtlMs: number;
    subjectWindowMs: number;
  };
}

/** Spec 8: the refusal text of a reply over the size limit. */
export const TOO_LARGE_EXPLANATION = "Message length exceeds limit set by recipient";

export type ProcessOutcome =
  "processed" | "duplicate" | "refused" | "failed" | "already-done" | "missing" | "retry";

/** What became of a notification: the reply's project and thread once stored, the reason once failed. */
export interface ProcessResult {
  outcome: ProcessOutcome;
  /** null: not stored here, or stored unmatched */
  projectId: ProjectId | null;
  threadId: string | null;
  /** why it failed (unparseable, another bucket, no object) or was refused */
  reason: string | null;
}

const result = (outcome: ProcessOutcome, reason: string | null = null): ProcessResult => ({
  outcome,
  projectId: null,
  threadId: null,
  reason,
});

const lower = (s: string) => s.trim().toLowerCase();

/** Where an attachment goes: under the project (or `unmatched`) and the message. */
const attachmentKey = (projectId: ProjectId | null, messageId: string, position: number, name: string) =>
  `attachments/${projectId ?? "unmatched"}/${messageId}/${position}-${name}`;

/**
 * One stored notification → one stored reply (or a refusal): one ranged GetObject from the configured bucket
 * only (size first: a reply over the limit is bounced through SES SendBounce without more than the limit
 * downloaded), parse, thread, attachments to S3, then the message, thread, attachments and email.inbound outbox
 * row in one statement. Idempotent: a notification already finished is left alone; the reply's id is the notification's,
 * so a retry after a crash writes the same attachment keys.
 * `lastAttempt`: a missing S3 object is retried until then, then recorded as failed.
 */
export async function processNotification(
  deps: ProcessDeps,
  notificationId: string,
  opts: { lastAttempt?: boolean } = {},
): Promise<ProcessResult> {
  const n = await loadNotification(deps.db, notificationId);
  if (!n) return result("missing");
  if (n.status !== "received") return result("already-done");
  const cfg = deps.config;

  let size: number;
  let raw: Buffer | null;
  if (n.actionType === "S3") {
    // Never a bucket the message names: a notification pointing elsewhere is refused, not followed.
    if (n.bucketName !== cfg.bucket) {
      const reason = `object is in bucket ${n.bucketName}, not the inbound bucket`;
      await finishNotification(deps.db, n.id, "failed", reason, null);
      return result("failed", reason);
    }
    // Size first: a GET of at most the limit + 1 bytes names the object's size, so a reply over the limit is
    // bounced without being downloaded, and one within it is read by the same request.
    const found = await getObjectUpTo(deps.s3, cfg.bucket, n.objectKey!, cfg.maxBytes);
    if (found === null) {
      if (!opts.lastAttempt) return result("retry");
      const reason = `no object ${n.objectKey} in the inbound bucket`;
      await finishNotification(deps.db, n.id, "failed", reason, null);
      return result("failed", reason);
    }
    size = found.size;
    raw = found.bytes;
  } else {
    raw = Buffer.from(n.content ?? "", "latin1");
    size = raw.length;
  }

  if (size > cfg.maxBytes || raw === null) {
    return result("refused", await bounceTooLarge(deps, n, size));
  }

  let parsed: ParsedReply;
  try {
    parsed = await parseMime(raw);
  } catch (err) {
    if (!(err instanceof UnparseableMessageError)) throw err;
    const reason = `unparseable message: ${err.message}`;
    await finishNotification(deps.db, n.id, "failed", reason, size);
    deps.logger.warn({ notificationId: n.id, err: err.message }, "inbound message could not be parsed");
    return result("failed", reason);
  }
  if (!parsed.from) {
    const reason = "unparseable message: no From address";
    await finishNotification(deps.db, n.id, "failed", reason, size);
    return result("failed", reason);
  }

  const normalizedSubject = normalizeSubject(parsed.subject);
  const resolution = await resolveThread(deps.resolve, {
    recipients: n.recipients,
    parsed,
    normalizedSubject,
    dmarcFailed: n.verdicts.dmarc === "FAIL",
    inboundDomain: cfg.inboundDomain,
    subjectSince: new Date(Date.now() - cfg.subjectWindowMs),
  });
  return storeReply(deps, n, parsed, raw, size, normalizedSubject, resolution);
}

/** Bounces a reply over the size limit and records it refused; returns the recorded reason. */
async function bounceTooLarge(deps: ProcessDeps, n: StoredNotification, size: number): Promise<string> {
  const cfg = deps.config;
  const ours = n.recipients.filter((r) => lower(r).endsWith(`@${cfg.inboundDomain.toLowerCase()}`));
  await sendBounce(deps.sesV1, {
    originalMessageId: n.sesMessageId,
    bounceSender: cfg.bounceSender,
    explanation: TOO_LARGE_EXPLANATION,
    recipients: ours.length ? ours : n.recipients,
    bounceType: "MessageTooLarge",
    status: "5.3.4",
  });
  const reason = `${TOO_LARGE_EXPLANATION} (${size} bytes, limit ${cfg.maxBytes}): bounced to the sender`;
  await finishNotification(deps.db, n.id, "refused", reason, size);
  deps.logger.info({ notificationId: n.id, size }, "inbound reply too large: bounced");
  return reason;
}

async function storeReply(
  deps: ProcessDeps,
  n: StoredNotification,
  parsed: ParsedReply,
  raw: Buffer,
  size: number,
  normalizedSubject: string,
  r: Resolution,
): Promise<ProcessResult> {
  const cfg = deps.config;
  const id = n.id;
  const projectId = r.projectId;
  const send = r.send;
  const from = parsed.from!;

  const attachments: NewAttachment[] = [];
  const seen = new Set<string>();
  for (const [i, a] of parsed.attachments.entries()) {
    let filename = sanitizeFilename(a.filename, `attachment-${i + 1}`);
    // two parts with one name keep both: the second gets its position
    if (seen.has(filename)) filename = `${i + 1}-${filename}`;
    seen.add(filename);
    const storageKey = attachmentKey(projectId, id, i + 1, filename);
    await putObject(deps.s3, {
      bucket: cfg.attachmentsBucket,
      key: storageKey,
      body: a.content,
      contentType: a.contentType,
    });
    attachments.push({
      id: randomUUID(),
      position: i + 1,
      filename,
      contentType: a.contentType,
      size: a.content.length,
      storageKey,
    });
  }

  const kind = classifyKind(parsed);
  const reply = replyText(parsed.text);
  const recipient = r.recipient ?? lower(n.recipients[0] ?? parsed.to[0]?.email ?? "");
  const receivedAt = new Date();
  const participants = [
    ...new Set(
      [from.email, ...parsed.to.map((a) => a.email), ...parsed.cc.map((a) => a.email)]
        .map(lower)
        .concat(send ? [lower(send.recipient), lower(send.fromEmail)] : [])
        .filter((a) => a && !a.endsWith(`@${cfg.inboundDomain.toLowerCase()}`)),
    ),
  ];
  // a reply to a dashboard send (no token: campaigns, x-source platform) reached the human sender (spec 4.11)
  const dashboard =
    send !== null && (!send.hasReplyToken || send.campaignId !== null) && r.matchedBy !== "legacy";
  const isTest = send?.isTest ?? false;
  const linkExpiry = new Date(receivedAt.getTime() + cfg.linkTtlMs);

  const stored = await storeInboundMessage(deps.db, {
    notificationId: n.id,
    participants,
    // the subject rule's thread, else the send's own once its first reply made it, else the send's made now
    thread: !projectId
      ? null
      : (r.threadId ?? send?.threadId)
        ? { existingId: (r.threadId ?? send?.threadId)! }
        : {
            create: {
              projectId,
              activityId: send?.activityId ?? null,
              emailMessageId: send?.emailMessageId ?? null,
              campaignId: send?.campaignId ?? null,
              outboundMessageId: send?.messageId ? bracketed(send.messageId) : null,
              emailType: send?.emailType ?? null,
              isTest,
              subject: send?.subject ?? parsed.subject,
              normalizedSubject: normalizeSubject(send?.subject ?? parsed.subject),
            },
          },
    message: {
      id,
      projectId,
      activityId: send?.activityId ?? null,
      isTest,
      dedupeKey: `${projectId ?? "-"}|${parsed.messageId ?? `ses:${n.sesMessageId}`}|${recipient}`.slice(
        0,
        2000,
      ),
      sesMessageId: n.sesMessageId,
      messageId: parsed.messageId,
      inReplyTo: parsed.inReplyTo,
      references: parsed.references,
      fromEmail: from.email,
      fromName: from.name,
      to: parsed.to,
      cc: parsed.cc,
      recipient,
      subject: parsed.subject,
      textBody: clean(parsed.text),
      htmlBody: clean(parsed.html),
      replyText: clean(reply),
      sentAt: parsed.date,
      kind,
      matchedBy: r.matchedBy,
      returnPathParsed: r.returnPathParsed,
      verdicts: n.verdicts,
      suspicious: r.suspicious,
      rawKey: n.actionType === "S3" ? n.objectKey : null,
      raw: n.actionType === "S3" ? null : raw.toString("latin1"),
      size,
      receivedAt,
      attachments,
    },
    forwardable: !dashboard,
    buildBody: (threadId) => {
      if (!projectId || !threadId) return null;
      const webhookAttachments: WebhookAttachment[] = attachments.map((a) => ({
        filename: a.filename,
        content_type: a.contentType,
        size: a.size,
        storage_key: a.storageKey,
        download_url: attachmentLink(cfg.publicBaseUrl, cfg.linkSecret, a.id, linkExpiry).url,
      }));
      return buildInboundWebhookBody({
        inboundId: id,
        projectId,
        isTest,
        threadId,
        messageId: parsed.messageId,
        inReplyTo: parsed.inReplyTo,
        references: parsed.references,
        from,
        to: parsed.to,
        cc: parsed.cc,
        subject: parsed.subject,
        text: clean(parsed.text),
        html: clean(parsed.html),
        date: parsed.date,
        attachments: webhookAttachments,
        returnPathParsed: r.returnPathParsed,
        original: {
          messageId: send?.messageId ? bracketed(send.messageId) : null,
          activityId: send?.activityId ?? null,
          campaignId: send?.campaignId ?? null,
          emailType: send?.emailType ?? null,
        },
        replyText: clean(reply),
        kind,
        verdicts: n.verdicts,
        suspicious: r.suspicious,
        matchedBy: r.matchedBy!,
        receivedAt,
      });
    },
  });
  if (stored.kind === "duplicate") return result("duplicate");
  if (stored.forward === "queued") deps.kickOutbox();
  deps.counters?.processed.inc({ matched_by: r.matchedBy ?? "unmatched", kind });
  if (!projectId)
    deps.logger.warn({ inboundId: id, from: from.email, recipients: n.recipients }, "inbound.unmatched");
  return { outcome: "processed", projectId, threadId: stored.threadId, reason: null };
}

/** PostgreSQL text refuses NUL; a mail may carry one. */
const clean = (s: string) => s.replaceAll("\0", "");
