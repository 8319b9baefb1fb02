export interface DnsRecordSpec {
  type: "TXT" | "CNAME";
  name: string;
  value: string;
  purpose: "ses_verification" | "dkim" | "spf" | "dmarc" | "return_path";
}

/** The seven records of spec 4.10, names relative to the domain. */
export function buildDnsRecords(opts: {
  asciiDomain: string;
  verificationToken: string;
  dkimTokens: string[];
  region: string;
}): DnsRecordSpec[] {
  return [
    { type: "TXT", name: "_amazonses", value: opts.verificationToken, purpose: "ses_verification" },
    ...opts.dkimTokens.slice(0, 3).map((t): DnsRecordSpec => ({
      type: "CNAME",
      name: `${t}._domainkey`,
      value: `${t}.dkim.amazonses.com`,
      purpose: "dkim",
    })),
    { type: "TXT", name: "@", value: "v=spf1 include:amazonses.com ~all", purpose: "spf" },
    {
      type: "TXT",
      name: "_dmarc",
      value: `v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@${opts.asciiDomain}`,
      purpose: "dmarc",
    },
    {
      type: "CNAME",
      name: "bounce",
      value: `feedback-smtp.${opts.region}.amazonses.com`,
      purpose: "return_path",
    },
  ];
}

/**
 * Domain status (the spec shows only `verified`):
 *   pending             registered, nothing verified yet
 *   partially_verified  some checks pass but not both domain and DKIM (cannot send yet)
 *   verified            domain and DKIM verified: can_send
 *   failed              the provider reports verification failed (records wrong or removed for too long)
 * Set by POST /domains/:domain/verify from the provider's answer.
 */
export function domainStatus(v: {
  domainVerified: boolean;
  dkimVerified: boolean;
  mailFromVerified: boolean;
  providerFailed: boolean;
}): string {
  if (v.domainVerified && v.dkimVerified) return "verified";
  if (v.providerFailed) return "failed";
  if (v.domainVerified || v.dkimVerified || v.mailFromVerified) return "partially_verified";
  return "pending";
}

/** A domain can send once the provider verified both the domain and its DKIM records. */
export const canSend = (d: { domain_verified: boolean; dkim_verified: boolean }): boolean =>
  d.domain_verified && d.dkim_verified;
