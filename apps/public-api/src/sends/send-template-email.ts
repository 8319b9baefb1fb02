import {
  AppError,
  ErrorCode,
  MSG_SEND_TEMPLATE_MISSING,
  MSG_TEMPLATE_INTERNAL_ID_CONTEXT,
  sendTemplateEmailBody,
} from "@emailsvc/contracts";
import { renderTemplate } from "@emailsvc/content";
import { bodyObject, isMissing, parseBody } from "./domain/parse-body";
import { loadTemplate, type TemplateRef } from "@emailsvc/sending";
import { apiSendContent, checkAndAcceptApiSend } from "./accept-api-send";
import { rendered } from "./domain/rendered";
import type { SendDeps, SendOutcome } from "./send-deps";
import { dryRun, MSG_QUEUED, type SendEmailContext } from "./send-email";

export const MSG_TEMPLATE_NOT_FOUND = "Template not found";

/** A positive integer, given as a JSON number or a string of digits; anything else is refused. */
export function positiveInt(value: unknown): number | null {
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^\d+$/.test(value.trim())
        ? Number(value)
        : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * POST /v1/send-template-email (spec 4.2): the template (by UUID or per-project internal id, through the
 * 5-minute cache) rendered with the spec's template syntax from `variables`; the subject defaults to the
 * template's. Then the same checks and accept transaction as a single send.
 */
export async function sendTemplateEmail(
  deps: SendDeps,
  ctx: SendEmailContext,
  rawBody: unknown,
): Promise<SendOutcome> {
  const raw = bodyObject(rawBody);
  const hasInternalId = raw.template_internal_id !== undefined && raw.template_internal_id !== null;
  if (
    isMissing(raw.recipient_email) ||
    isMissing(raw.sender_email) ||
    (isMissing(raw.template_id) && !hasInternalId)
  ) {
    throw new AppError(ErrorCode.VALIDATION, MSG_SEND_TEMPLATE_MISSING);
  }
  let ref: TemplateRef;
  if (!isMissing(raw.template_id)) {
    const body = parseBody(sendTemplateEmailBody.pick({ template_id: true }), raw);
    ref = { id: body.template_id! };
  } else {
    const internalId = positiveInt(raw.template_internal_id);
    if (internalId === null) throw new AppError(ErrorCode.VALIDATION, MSG_TEMPLATE_INTERNAL_ID_CONTEXT);
    ref = { internalId };
  }
  const body = parseBody(sendTemplateEmailBody, raw);
  const { projectId } = ctx.auth;

  const loaded = await loadTemplate(deps, projectId, ref);
  if (!loaded) throw new AppError(ErrorCode.NOT_FOUND, MSG_TEMPLATE_NOT_FOUND);
  const { template, fromCache } = loaded;

  const vars = body.variables ?? undefined;
  const subject = rendered("subject", () =>
    // A blank subject is as good as none (as everywhere else): the template's, not an email without one.
    renderTemplate(body.subject?.trim() ? body.subject : template.subject, vars, { html: false }),
  );
  const html = rendered("The template's html", () => renderTemplate(template.html, vars, { html: true }));
  const text = template.text
    ? rendered("The template's text", () => renderTemplate(template.text!, vars, { html: false }))
    : null;
  const variablesUsed = [
    ...new Set([...subject.variablesUsed, ...html.variablesUsed, ...(text?.variablesUsed ?? [])]),
  ];

  const requested = { to: [body.recipient_email], cc: [], bcc: [] };
  if (body.dry_run) {
    // 4.1's dry run for a template, with the template's ids
    const described = await dryRun(deps, ctx, body, requested, {
      subject: subject.text,
      html: html.text,
      variablesUsed,
    });
    return {
      status: 200,
      body: {
        ...described,
        template_id: template.id,
        template_internal_id: template.internalId,
        used_cached_html: fromCache,
      },
    };
  }
  const content = apiSendContent(body, { subject, html, text });
  return checkAndAcceptApiSend(deps, ctx, content, requested, async (_lists, emailMessageId) => ({
    attachments: [],
    response: {
      status: 200,
      body: {
        message: MSG_QUEUED,
        email_id: emailMessageId,
        project_id: projectId,
        template_id: template.id,
        template_internal_id: template.internalId,
        variables_used: variablesUsed,
        used_cached_html: fromCache,
      },
    },
  }));
}
