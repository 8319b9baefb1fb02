import type { StoredAttachment } from "../attachments/prepare-attachments";
import { acceptSend } from "./accept-send";
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

/**
 * The accept step shared by the v1 single-send endpoints: the key's mode decides is_test and counting, every
 * recipient gets a token Reply-To, the send is queued through the outbox, and an idempotent repeat replays.
 */
export async function acceptApiSend(
  deps: SendDeps,
  ctx: SendEmailContext,
  email: ApiEmail,
  response: SendOutcome,
): Promise<SendOutcome> {
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
    ...(ctx.idempotency ? { idempotency: { ...ctx.idempotency, response } } : {}),
    ...(ctx.correlationId ? { correlationId: ctx.correlationId } : {}),
  });
  if (result.kind === "replay") return { ...result.response, replayed: true };
  deps.outbox.kick();
  return response;
}
