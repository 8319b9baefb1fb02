import { AppError, ErrorCode, humanReplyTo, type ProjectId } from "@emailsvc/contracts";
import { contentVariables, renderDoubleBraces, renderTemplate } from "@emailsvc/content";
import { findCampaign, findLeadRow, leadVariables, timeOrderedUuid } from "@emailsvc/db";
import { acceptSend, checkSenderAndFilter, loadTemplate, skippedBody } from "@emailsvc/sending";
import type { CampaignDeps } from "./campaign-deps";

/**
 * A test send of a campaign to one address (issue 24): the campaign as its recipients get it (footer, one-click
 * unsubscribe, the human Reply-To of spec 4.11), subject prefixed `[Test]`, its variables from the project's lead
 * with that address when there is one. Not a recipient of the campaign: it is neither in its ledger nor its stats.
 * A suppressed address is skipped, as every send is.
 */
export async function sendTestCampaign(deps: CampaignDeps, projectId: ProjectId, id: string, email: string) {
  const campaign = await findCampaign(deps.db, projectId, id);
  if (!campaign) throw new AppError(ErrorCode.NOT_FOUND, "Campaign not found");
  const lists = await checkSenderAndFilter(deps.db, projectId, campaign.from_email, {
    to: [email],
    cc: [],
    bcc: [],
  });
  if (!lists.to.length) return { status: 200, body: skippedBody(lists.skipped[0]!) };

  const fromTemplate = campaign.template_id !== null;
  let html = campaign.html ?? "";
  let text = campaign.text;
  if (campaign.template_id) {
    const t = await loadTemplate(deps, projectId, { id: campaign.template_id });
    if (!t) throw new AppError(ErrorCode.NOT_FOUND, "The campaign's template was deleted");
    ({ html, text } = t.template);
  }
  const lead = await findLeadRow(deps.db, projectId, email);
  const names = contentVariables({ subject: campaign.subject, html, text }, fromTemplate);
  const data = lead ? leadVariables(lead, names) : { email };
  const render = fromTemplate ? renderTemplate : renderDoubleBraces;
  const emailMessageId = timeOrderedUuid();
  const result = await acceptSend(deps.db, {
    emailMessageId,
    projectId,
    isTest: false,
    counted: true,
    // a campaign's content: the send-worker gives it the footer and the one-click unsubscribe headers
    source: "campaign",
    emailType: campaign.email_type,
    fromEmail: campaign.from_email,
    fromName: campaign.from_name,
    subject: `[Test] ${render(campaign.subject, data, { html: false }).text}`,
    html: render(html, data, { html: true }).text,
    text: text === null ? null : render(text, data, { html: false }).text,
    cc: [],
    bcc: [],
    headers: { "Reply-To": humanReplyTo(campaign.from_name, campaign.reply_to ?? campaign.from_email) },
    attachments: [],
    templateId: null,
    campaignId: null,
    automationRunId: null,
    recipients: lists.to,
    replyTokens: false,
    enqueue: true,
  });
  if (result.kind !== "accepted") throw new AppError(ErrorCode.INTERNAL, "Test send was not accepted");
  deps.kickOutbox();
  return {
    status: 200,
    body: {
      success: true,
      message: `Test of campaign ${campaign.name} queued for ${email}`,
      email_id: emailMessageId,
      activity_id: result.activities[0]!.id,
    },
  };
}
