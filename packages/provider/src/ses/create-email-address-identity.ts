import { CreateEmailIdentityCommand, type SESv2Client } from "@aws-sdk/client-sesv2";

export interface CreateEmailAddressIdentityResult {
  verifiedForSending: boolean;
}

/** Registers a single address; SES mails it a verification link that its owner must click. */
export async function createEmailAddressIdentity(
  ses: SESv2Client,
  email: string,
): Promise<CreateEmailAddressIdentityResult> {
  const out = await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: email }));
  return { verifiedForSending: out.VerifiedForSendingStatus ?? false };
}
