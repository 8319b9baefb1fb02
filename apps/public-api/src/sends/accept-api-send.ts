import type { EmailContent } from "@emailsvc/content";
import { timeOrderedUuid } from "@emailsvc/db";
import type { StoredAttachment } from "./attachments/prepare-attachments";
import { checkSenderAndFilter, skippedBody, type SuppressionOutcome } from "@emailsvc/sending";
import type { SendDeps, SendEmailContext, SendOutcome } from "./send-deps";

export interface ApiEmail extends EmailContent {
  emailMessageId: string;
  fromEmail: string;
  fromName: string | null;
  cc: readonly string[];
  bcc: readonly string[];
  attachments: readonly StoredAttachment[];
  recipients: readonly string[];
}

/** The email as the client wrote it, rendered: what the checks do not change. */
export interface ApiSendContent extends EmailContent {
  fromEmail: string;
  fromName: string | null;
}

/** The content of a v1 send from its body and its rendered parts. */
export function apiSendContent(
  body: { sender_email: string; sender_name?: string | null | undefined },
  rendered: { subject: { text: string }; html: { text: string }; text: { text: string } | null },
): ApiSendContent {
  return {
    fromEmail: body.sender_email,
    fromName: body.sender_name ?? null,
    subject: rendered.subject.text,
    html: rendered.html.text,
    text: rendered.text?.text ?? null,
  };
}

type Lists = { to: readonly string[]; cc: readonly string[]; bcc: readonly string[] };

/**
 * The sender check, suppression filter and accept of the v1 single sends. The usual send (verified sender, no
 * suppressed recipient) needs one round trip: the checks ride inside the accept statement. When they refuse,
 * nothing was written, and the checks are made again on their own, which say why: the 403 of an unverified
 * sender, or the lists without the suppressed addresses (cc/bcc dropped silently; when no `to` is left, the
 * skipped body of spec 4.1 for the first suppressed one). `finish` gives the accepted email its attachments
 * and the response. `checksFirst` makes the checks first in any case: an email with attachments stores them in
 * `finish`, which must never happen for a sender that is refused.
 */
export async function checkAndAcceptApiSend(
  deps: SendDeps,
  ctx: SendEmailContext,
  content: ApiSendContent,
  requested: Lists,
  finish: (
    lists: SuppressionOutcome,
    emailMessageId: string,
  ) => Promise<{ attachments: readonly StoredAttachment[]; response: SendOutcome }>,
  opts: { checksFirst?: boolean } = {},
): Promise<SendOutcome> {
  const accept = async (lists: SuppressionOutcome, gates?: { sender: string; addresses: string[] }) => {
    if (lists.to.length === 0) return { status: 200, body: skippedBody(lists.skipped[0]!) };
    const emailMessageId = timeOrderedUuid();
    const { attachments, response } = await finish(lists, emailMessageId);
    const email = {
      ...content,
      emailMessageId,
      cc: lists.cc,
      bcc: lists.bcc,
      attachments,
      recipients: lists.to,
    };
    return acceptApiSend(deps, ctx, email, response, gates);
  };
  if (!opts.checksFirst) {
    const { to, cc, bcc } = requested;
    const gates = { sender: content.fromEmail, addresses: [...to, ...cc, ...bcc] };
    const outcome = await accept({ to: [...to], cc: [...cc], bcc: [...bcc], skipped: [] }, gates);
    if (outcome) return outcome;
  }
  const lists = await checkSenderAndFilter(deps.db, ctx.auth.projectId, content.fromEmail, requested);
  return (await accept(lists))!;
}

/**
 * The accept step shared by the v1 single-send endpoints: the key's mode decides is_test and counting, every
 * recipient gets a token Reply-To, the send is queued through the outbox, and an idempotent repeat replays.
 * Resolves null when `gates` refused (nothing written).
 */
async function acceptApiSend(
  deps: SendDeps,
  ctx: SendEmailContext,
  email: ApiEmail,
  response: SendOutcome,
  gates?: { sender: string; addresses: readonly string[] },
): Promise<SendOutcome | null> {
  const { projectId, mode } = ctx.auth;
  // past the project's fair share of the provider rate, its sends take only the slots others leave free
  const lane = (await deps.laneFor?.(projectId, email.recipients.length)) ?? "transactional";
  const result = await deps.accepts.submit({
    ...email,
    lane,
    projectId,
    isTest: mode === "test",
    counted: mode === "live",
    source: "api",
    emailType: "transactional",
    headers: null,
    // Not recorded: email_messages.template_id tells the worker to render per recipient (batch); these emails
    // arrive rendered.
    templateId: null,
    campaignId: null,
    automationRunId: null,
    replyTokens: true,
    enqueue: true,
    ...(gates ? { gates } : {}),
    ...(ctx.idempotency ? { idempotency: { ...ctx.idempotency, response } } : {}),
    ...(ctx.correlationId ? { correlationId: ctx.correlationId } : {}),
  });
  if (result.kind === "gates_refused") return null;
  if (result.kind === "replay") return { ...result.response, replayed: true };
  if (!result.outboxHanded) deps.outbox.kick();
  return response;
}
