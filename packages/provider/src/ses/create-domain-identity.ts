import { CreateEmailIdentityCommand, type SESv2Client } from "@aws-sdk/client-sesv2";

export interface CreateDomainIdentityResult {
  /** SES v2 verifies domains through DKIM, so there is normally no TXT verification token (kept for v1 parity). */
  verificationToken?: string;
  /** Easy DKIM tokens: publish `<token>._domainkey.<domain> CNAME <token>.dkim.amazonses.com` for each. */
  dkimTokens: string[];
}

/** Registers a domain with Easy DKIM (RSA 2048-bit keys, managed and rotated by SES). */
export async function createDomainIdentity(
  ses: SESv2Client,
  domain: string,
): Promise<CreateDomainIdentityResult> {
  const out = await ses.send(
    new CreateEmailIdentityCommand({
      EmailIdentity: domain,
      DkimSigningAttributes: { NextSigningKeyLength: "RSA_2048_BIT" },
    }),
  );
  return { dkimTokens: out.DkimAttributes?.Tokens ?? [] };
}
