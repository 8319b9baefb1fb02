import { humanReplyTo, isAppError } from "@emailsvc/contracts";
import { timeOrderedUuid } from "@emailsvc/db";
import { acceptSend, checkSenderAndFilter } from "@emailsvc/sending";
import { invitationEmail, type InvitationEmailInput } from "./domain/invitation-email";
import { projectOfVerifiedSender } from "./invitations.repo";
import type { InvitationsDeps } from "./invitations-deps";

export type InvitationEmailOutcome =
  | { sent: true; emailId: string; activityId: string }
  /** why not, in words the inviter reads; the answer then carries the link to pass on */
  | { sent: false; reason: string };

/**
 * The invitation as an email through the platform's own send model (issue 45): a live send of the platform's
 * project (DASHBOARD_INVITE_PROJECT_ID, or the project holding DASHBOARD_INVITE_FROM) from that sender, accepted
 * like any other (the sender check, suppressions, the quota, an activity and its outbox row) and sent by the
 * send-worker. Without a configured or usable sender the invitation still exists: the caller hands the link over.
 */
export async function sendInvitationEmail(
  deps: InvitationsDeps,
  to: string,
  content: InvitationEmailInput,
): Promise<InvitationEmailOutcome> {
  const from = deps.config.from;
  if (!from)
    return { sent: false, reason: "no sender is configured for invitations (DASHBOARD_INVITE_FROM)" };
  const projectId = deps.config.projectId ?? (await projectOfVerifiedSender(deps.db, from.email));
  if (!projectId)
    return {
      sent: false,
      reason: `no project has ${from.email} (DASHBOARD_INVITE_FROM) as a verified sender`,
    };
  try {
    const lists = await checkSenderAndFilter(deps.db, projectId, from.email, { to: [to], cc: [], bcc: [] });
    if (!lists.to.length)
      return { sent: false, reason: `${to} is on the platform project's suppression list` };
    const email = invitationEmail(content);
    const emailMessageId = timeOrderedUuid();
    const result = await acceptSend(deps.db, {
      emailMessageId,
      projectId,
      isTest: false,
      counted: true,
      // a dashboard send: no reply token, a human Reply-To (spec 4.4, 4.11)
      source: "platform",
      emailType: "transactional",
      fromEmail: from.email,
      fromName: from.name,
      subject: email.subject,
      html: email.html,
      text: email.text,
      cc: [],
      bcc: [],
      headers: content.inviter
        ? { "Reply-To": humanReplyTo(content.inviter.name, content.inviter.email) }
        : null,
      attachments: [],
      templateId: null,
      campaignId: null,
      automationRunId: null,
      recipients: lists.to,
      replyTokens: false,
      enqueue: true,
    });
    if (result.kind !== "accepted") return { sent: false, reason: "the send was not accepted" };
    deps.kickOutbox();
    return { sent: true, emailId: emailMessageId, activityId: result.activities[0]!.id };
  } catch (err) {
    // an unverified sender, the quota: the invitation stands, the inviter passes the link on
    if (isAppError(err)) return { sent: false, reason: err.message };
    throw err;
  }
}
