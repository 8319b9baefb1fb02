import { currencyExponent, UNSIGNED_ABANDONED_CART_OFF } from "@emailsvc/contracts";
import { renderTemplate } from "@emailsvc/content";
import { type Db, type DueStep, finishStep, releaseStep } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { acceptSend, checkSenderAndSuppressions, loadTemplate, type TemplateCache } from "@emailsvc/sending";

export type StepOutcome = "sent" | "stopped" | "skipped" | "retry";

/** "40994" minor units of USD → "409.94" (what templates show). */
function money(minor: string | null, currency: string): string | null {
  if (minor === null) return null;
  const exp = currencyExponent(currency);
  const digits = minor.padStart(exp + 1, "0");
  return exp ? `${digits.slice(0, -exp)}.${digits.slice(-exp)}` : digits;
}

/** The template's variables: the items for `{{#each items}}`, the recovery URL, the totals, the buyer's name. */
export function abandonedCartVariables(step: DueStep): Record<string, unknown> {
  const items = (step.line_items as Record<string, unknown>[]).map((i) => ({
    ...i,
    price: money(String(i.price_minor ?? "0"), step.currency),
    line_price: money(String(i.line_price_minor ?? "0"), step.currency),
  }));
  return {
    items,
    recovery_url: step.recovery_url,
    total_price: money(step.total_minor, step.currency),
    subtotal_price: money(step.subtotal_minor, step.currency),
    currency: step.currency,
    email: step.email,
    first_name: step.first_name,
    last_name: step.last_name,
    step: step.step,
  };
}

/**
 * One claimed step. At send time it checks again that no order closed the checkout, that the lead has not
 * unsubscribed, that the shop signs its deliveries (or allows unsigned ones to send), that no other checkout's abandoned-cart email reached the lead in 24 h (steps of one checkout
 * follow their own delays), and that the shop has a template and sender. The send goes through the shared send
 * model (`automation`, `automation_run_id` = the checkout) with the step's id as its message id: a step claimed
 * again after a crash finds its send already accepted (the id is taken) and does not send twice.
 */
export async function sendAbandonedStep(
  deps: { db: Db; templateCache: TemplateCache; logger: Logger; unitSeconds: number },
  step: DueStep,
): Promise<StepOutcome> {
  const finish = (o: Parameters<typeof finishStep>[2]) => finishStep(deps.db, step, o, deps.unitSeconds);
  if (step.ordered) return finish({ status: "stopped", reason: "order placed" }).then(() => "stopped");
  const skip = (reason: string) => finish({ status: "skipped", reason }).then((): StepOutcome => "skipped");
  if (step.unsubscribed) return skip("lead unsubscribed");
  if (step.unsigned_not_allowed) return skip(UNSIGNED_ABANDONED_CART_OFF);
  if (step.recently_mailed)
    return skip("another abandoned-cart email reached this lead in the last 24 hours");
  if (!step.abandoned_template_id || !step.abandoned_from_email)
    return skip("the shop has no abandoned-cart template and sender");
  const loaded = await loadTemplate(deps, step.project_id, { id: step.abandoned_template_id });
  if (!loaded) return skip("the abandoned-cart template no longer exists");
  const vars = abandonedCartVariables(step);
  let subject: string;
  let html: string;
  let text: string | null;
  try {
    subject = renderTemplate(loaded.template.subject, vars, { html: false }).text;
    html = renderTemplate(loaded.template.html, vars, { html: true }).text;
    text = loaded.template.text ? renderTemplate(loaded.template.text, vars, { html: false }).text : null;
  } catch (err) {
    return skip(`the template could not be rendered: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const result = await acceptSend(deps.db, {
      emailMessageId: step.id,
      projectId: step.project_id,
      isTest: false,
      counted: true,
      source: "automation",
      emailType: "automation",
      fromEmail: step.abandoned_from_email,
      fromName: step.abandoned_from_name,
      subject,
      html,
      text,
      cc: [],
      bcc: [],
      headers: null,
      attachments: [],
      templateId: loaded.template.id,
      campaignId: null,
      automationRunId: step.checkout_id,
      recipients: [step.email],
      replyTokens: true,
      enqueue: true,
      gates: { sender: step.abandoned_from_email, addresses: [step.email] },
    });
    if (result.kind === "gates_refused") {
      const why = await checkSenderAndSuppressions(deps.db, step.project_id, step.abandoned_from_email, [
        step.email,
      ]);
      if (why.suppressed.size) return skip(`recipient suppressed (${[...why.suppressed.values()][0]})`);
      return skip(why.verification.verified ? "refused by the send gates" : "sender not verified");
    }
  } catch (err) {
    if (isDuplicateMessage(err)) {
      // accepted before a crash: this claim only records it
    } else {
      deps.logger.warn({ err, stepId: step.id }, "abandoned-cart send failed; retried in a minute");
      await releaseStep(deps.db, step.project_id, step.id, 60);
      return "retry";
    }
  }
  await finish({ status: "sent", emailMessageId: step.id });
  return "sent";
}

function isDuplicateMessage(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === "23505" && e.constraint === "email_messages_pkey";
}
