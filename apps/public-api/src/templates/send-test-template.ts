import { AppError, ErrorCode, humanReplyTo, type ProjectId } from "@emailsvc/contracts";
import { renderTemplate } from "@emailsvc/content";
import { type Db, timeOrderedUuid } from "@emailsvc/db";
import { acceptSend, checkSenderAndFilter, skippedBody } from "@emailsvc/sending";
import { rendered } from "../sends/domain/rendered";

export interface SendTestTemplateInput {
  to: string;
  /** a verified sender of the project; none: the project's oldest verified sender address */
  from?: string | undefined;
  variables?: Record<string, unknown> | undefined;
  /** `test` (default): a test send, as the test key makes (hidden from the live view, webhooks to the _dev URL,
   * not counted); `live`: as the live key */
  mode: "test" | "live";
}

/**
 * A test of a template to one address from the editor (issue 45), following the campaign's test send
 * (send-test-campaign.ts): rendered by the engine /v1/send-template-email uses, from the stored template, with the
 * editor's sample variables; subject prefixed `[Test]`; accepted through the send model (sender check,
 * suppressions, an activity and its outbox row) and sent by the send-worker. A suppressed address is skipped.
 */
export async function sendTestTemplate(
  deps: { db: Db; kickOutbox?: (() => void) | undefined },
  projectId: ProjectId,
  templateId: string,
  input: SendTestTemplateInput,
) {
  const template = await deps.db.prisma.template.findFirst({ where: { projectId, id: templateId } });
  if (!template) throw new AppError(ErrorCode.NOT_FOUND, "Template not found");
  const sender = input.from ? { email: input.from, name: null } : await defaultSender(deps.db, projectId);
  const lists = await checkSenderAndFilter(deps.db, projectId, sender.email, {
    to: [input.to],
    cc: [],
    bcc: [],
  });
  if (!lists.to.length) return { success: true, ...skippedBody(lists.skipped[0]!) };

  const vars = input.variables;
  const subject = rendered("The template's subject", () =>
    renderTemplate(template.subject, vars, { html: false }),
  );
  const html = rendered("The template's html", () => renderTemplate(template.html, vars, { html: true }));
  const text = template.text
    ? rendered("The template's text", () => renderTemplate(template.text!, vars, { html: false }))
    : null;
  const emailMessageId = timeOrderedUuid();
  const { email: fromEmail, name: fromName } = sender;
  const result = await acceptSend(deps.db, {
    emailMessageId,
    projectId,
    isTest: input.mode === "test",
    counted: input.mode === "live",
    // a dashboard send: a human Reply-To, no reply token (spec 4.4, 4.11)
    source: "platform",
    emailType: "transactional",
    fromEmail,
    fromName,
    subject: `[Test] ${subject.text}`,
    html: html.text,
    text: text?.text ?? null,
    cc: [],
    bcc: [],
    headers: { "Reply-To": humanReplyTo(fromName, fromEmail) },
    attachments: [],
    templateId: null,
    campaignId: null,
    automationRunId: null,
    recipients: lists.to,
    replyTokens: false,
    enqueue: true,
  });
  if (result.kind !== "accepted") throw new AppError(ErrorCode.INTERNAL, "Test send was not accepted");
  deps.kickOutbox?.();
  return {
    success: true,
    message: `Test of template ${template.name} queued for ${lists.to[0]} (${input.mode})`,
    email_id: emailMessageId,
    activity_id: result.activities[0]!.id,
    mode: input.mode,
  };
}

async function defaultSender(db: Db, projectId: ProjectId): Promise<{ email: string; name: string | null }> {
  const profile = await db.prisma.senderProfile.findFirst({
    where: { projectId, emailVerified: true, active: true },
    orderBy: { createdAt: "asc" },
    select: { senderEmail: true, senderName: true },
  });
  if (!profile)
    throw new AppError(ErrorCode.VALIDATION, "from is required: the project has no verified sender address");
  return { email: profile.senderEmail, name: profile.senderName };
}
