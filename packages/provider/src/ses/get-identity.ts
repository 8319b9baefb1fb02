import { GetEmailIdentityCommand, type SESv2Client } from "@aws-sdk/client-sesv2";

/** SES verification states; NOT_STARTED also stands for "SES did not report one". */
export type IdentityStatus = "PENDING" | "SUCCESS" | "FAILED" | "TEMPORARY_FAILURE" | "NOT_STARTED";

export interface IdentityDetails {
  identityType: "DOMAIN" | "EMAIL_ADDRESS" | "MANAGED_DOMAIN" | "UNKNOWN";
  verifiedForSending: boolean;
  verificationStatus: IdentityStatus;
  dkimStatus: IdentityStatus;
  /** MAIL FROM status; NOT_STARTED when no custom MAIL FROM domain is configured. */
  mailFromStatus: IdentityStatus;
  mailFromDomain?: string;
  dkimTokens: string[];
}

const STATUSES: readonly string[] = ["PENDING", "SUCCESS", "FAILED", "TEMPORARY_FAILURE", "NOT_STARTED"];
const status = (s: string | undefined): IdentityStatus =>
  s && STATUSES.includes(s) ? (s as IdentityStatus) : "NOT_STARTED";

/** Current verification, DKIM and MAIL FROM state of an identity (throws NotFoundException if unknown). */
export async function getIdentity(ses: SESv2Client, identity: string): Promise<IdentityDetails> {
  const out = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
  const mailFromDomain = out.MailFromAttributes?.MailFromDomain || undefined;
  return {
    identityType: (out.IdentityType as IdentityDetails["identityType"] | undefined) ?? "UNKNOWN",
    verifiedForSending: out.VerifiedForSendingStatus ?? false,
    verificationStatus: status(out.VerificationStatus),
    dkimStatus: status(out.DkimAttributes?.Status),
    mailFromStatus: mailFromDomain ? status(out.MailFromAttributes?.MailFromDomainStatus) : "NOT_STARTED",
    ...(mailFromDomain ? { mailFromDomain } : {}),
    dkimTokens: out.DkimAttributes?.Tokens ?? [],
  };
}
