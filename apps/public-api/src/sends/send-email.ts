import { MSG_SEND_EMAIL_MISSING, sendEmailBody } from "@emailsvc/contracts";
import { renderDoubleBraces } from "@emailsvc/content";
import { AppError, ErrorCode } from "@emailsvc/http";
import { checkAttachments, checkAttachmentUrls, storeAttachments } from "./attachments/prepare-attachments";
import { bodyObject, isMissing, parseBody } from "./domain/parse-body";
import { distinctLists } from "./domain/recipients";
import { apiSendContent, checkAndAcceptApiSend } from "./accept-api-send";
import { checkSenderAndFilter } from "@emailsvc/sending";
import { rendered } from "./domain/rendered";
import type { SendDeps, SendEmailContext, SendOutcome } from "./send-deps";

export type { SendEmailContext };

export const MSG_QUEUED = "Email queued for sending";

/** `Name <address>` when a name was given, else the bare address (spec 4.1 `sender_name`). */
export const displayFrom = (email: string, name: string | null | undefined): string =>
  name ? `${name} <${email}>` : email;

/**
 * Spec 4.1's dry run, after the sender check and the suppression filter: what would be sent, nothing stored,
 * queued or sent (/v1/send-email and /v1/send-template-email).
 */
export async function dryRun(
  deps: SendDeps,
  ctx: SendEmailContext,
  body: { sender_email: string; sender_name?: string | null },
  requested: { to: string[]; cc: string[]; bcc: string[] },
  rendered: { subject: string; html: string; variablesUsed: string[] },
) {
  const lists = await checkSenderAndFilter(deps.db, ctx.auth.projectId, body.sender_email, requested);
  return {
    dry_run: true as const,
    test_mode: ctx.auth.mode === "test",
    would_send: {
      to: lists.to,
      from: displayFrom(body.sender_email, body.sender_name),
      subject: rendered.subject,
      html_preview: rendered.html,
      variables_used: rendered.variablesUsed,
    },
  };
}

/**
 * POST /v1/send-email (spec 4.1): validate, render `{{variable}}` from `data`, check the sender, drop suppressed
 * recipients, then either describe the email (dry_run) or store its attachments and accept it (one
 * transaction, outbox row included) for the send-worker.
 */
export async function sendEmail(
  deps: SendDeps,
  ctx: SendEmailContext,
  rawBody: unknown,
): Promise<SendOutcome> {
  const raw = bodyObject(rawBody);
  if (isMissing(raw.recipient_email) || isMissing(raw.sender_email) || isMissing(raw.html_body)) {
    throw new AppError(ErrorCode.VALIDATION, MSG_SEND_EMAIL_MISSING);
  }
  const body = parseBody(sendEmailBody, raw);
  const checked = checkAttachments(body.attachments ?? []);
  checkAttachmentUrls(deps.downloader, checked);
  const { projectId } = ctx.auth;

  const data = body.data ?? undefined;
  const subject = rendered("subject", () => renderDoubleBraces(body.subject ?? "", data, { html: false }));
  const html = rendered("html_body", () => renderDoubleBraces(body.html_body, data, { html: true }));
  const text = body.text_body
    ? rendered("text_body", () => renderDoubleBraces(body.text_body!, data, { html: false }))
    : null;

  const requested = distinctLists({ to: body.recipient_email, cc: body.cc ?? [], bcc: body.bcc ?? [] });

  if (body.dry_run) {
    const variablesUsed = [
      ...new Set([...subject.variablesUsed, ...html.variablesUsed, ...(text?.variablesUsed ?? [])]),
    ];
    return {
      status: 200,
      body: await dryRun(deps, ctx, body, requested, {
        subject: subject.text,
        html: html.text,
        variablesUsed,
      }),
    };
  }
  const content = apiSendContent(body, { subject, html, text });
  return checkAndAcceptApiSend(
    deps,
    ctx,
    content,
    requested,
    async (lists, emailMessageId) => {
      // Arrays: the others are still sent; the response says how many were skipped.
      const skippedNote = lists.skipped.length
        ? ` (${lists.skipped.length} suppressed recipient${lists.skipped.length > 1 ? "s" : ""} skipped)`
        : "";
      return {
        attachments: await storeAttachments(deps, checked, `${projectId}/${emailMessageId}`),
        response: {
          status: 200,
          body: { message: `${MSG_QUEUED}${skippedNote}`, email_id: emailMessageId, project_id: projectId },
        },
      };
    },
    // Attachments are stored before the accept: only once the sender is known to be verified.
    { checksFirst: checked.length > 0 },
  );
}
