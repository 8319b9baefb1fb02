import type { StoredAttachment } from "../attachments/prepare-attachments";
import { acceptSend } from "./accept-send";
import { checkSenderAndFilter, type SuppressionOutcome } from "./filter-suppressed";
import type { SendDeps, SendOutcome } from "./send-deps";
import type { SendEmailContext } from "./send-email";

export interface ApiEmail {
  emailMessageId: string;
  fromEmail: string;
  fromName: string | null;
  subject: string;
  html: string;
  text: string | null;
  cc: readonly string[];
  bcc: readonly string[];
  attachments: readonly StoredAttachment[];
  recipients: readonly string[];
}

/** What a v1 send makes of its checked recipients: an email to accept and its response, or a final answer. */
export type PreparedSend = { email: ApiEmail; response: SendOutcome } | { done: SendOutcome };

type Lists = { to: readonly string[]; cc: readonly string[]; bcc: readonly string[] };

/**
 * The sender check, suppression filter and accept of the v1 single sends. The usual send (verified sender, no
 * suppressed recipient) needs one round trip: the checks ride inside the accept statement, with `prepare` given
 * the lists as requested. When they refuse, nothing was written, and the checks are made again on their own,
 * which say why: the 403 of an unverified sender, or the lists without the suppressed addresses for `prepare`.
 * `checksFirst` makes them first in any case: an email with attachments stores them before its accept, which
 * must never happen for a sender that is refused.
 */
export async function checkAndAcceptApiSend(
  deps: SendDeps,
  ctx: SendEmailContext,
  sender: string,
  requested: Lists,
  prepare: (lists: SuppressionOutcome) => Promise<PreparedSend>,
  opts: { checksFirst?: boolean } = {},
): Promise<SendOutcome> {
  if (!opts.checksFirst) {
    const prepared = await prepare({
      to: [...requested.to],
      cc: [...requested.cc],
      bcc: [...requested.bcc],
      skipped: [],
    });
    if ("done" in prepared) return prepared.done;
    const gates = { sender, addresses: [...requested.to, ...requested.cc, ...requested.bcc] };
    const outcome = await acceptApiSend(deps, ctx, prepared.email, prepared.response, gates);
    if (outcome) return outcome;
  }
  const lists = await checkSenderAndFilter(deps.db, ctx.auth.projectId, sender, requested);
  const prepared = await prepare(lists);
  if ("done" in prepared) return prepared.done;
  return (await acceptApiSend(deps, ctx, prepared.email, prepared.response))!;
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
  const result = await acceptSend(deps.db, {
    ...email,
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
  deps.outbox.kick();
  return response;
}
