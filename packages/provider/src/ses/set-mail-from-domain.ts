import { PutEmailIdentityMailFromAttributesCommand, type SESv2Client } from "@aws-sdk/client-sesv2";

export type MailFromMxFailureBehavior = "USE_DEFAULT_VALUE" | "REJECT_MESSAGE";

/**
 * Sets (or with `null`, removes) the custom MAIL FROM subdomain, e.g. `bounce.example.com`. Its MX/SPF records
 * must then be published; until SES sees them, `USE_DEFAULT_VALUE` falls back to amazonses.com.
 */
export async function setMailFromDomain(
  ses: SESv2Client,
  identity: string,
  mailFromDomain: string | null,
  behaviorOnMxFailure: MailFromMxFailureBehavior = "USE_DEFAULT_VALUE",
): Promise<void> {
  await ses.send(
    new PutEmailIdentityMailFromAttributesCommand({
      EmailIdentity: identity,
      ...(mailFromDomain ? { MailFromDomain: mailFromDomain, BehaviorOnMxFailure: behaviorOnMxFailure } : {}),
    }),
  );
}
