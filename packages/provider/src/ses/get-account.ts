import { GetAccountCommand, type SESv2Client } from "@aws-sdk/client-sesv2";

export interface AccountDetails {
  sendingEnabled: boolean;
  /** false = SES sandbox (only verified recipients, low quota). */
  productionAccessEnabled: boolean;
  enforcementStatus?: string;
  /** Messages per second SES accepts before answering TooManyRequestsException. */
  maxSendRate: number;
  max24HourSend: number;
  sentLast24Hours: number;
}

export async function getAccount(ses: SESv2Client): Promise<AccountDetails> {
  const out = await ses.send(new GetAccountCommand({}));
  return {
    sendingEnabled: out.SendingEnabled ?? false,
    productionAccessEnabled: out.ProductionAccessEnabled ?? false,
    ...(out.EnforcementStatus ? { enforcementStatus: out.EnforcementStatus } : {}),
    maxSendRate: out.SendQuota?.MaxSendRate ?? 0,
    max24HourSend: out.SendQuota?.Max24HourSend ?? 0,
    sentLast24Hours: out.SendQuota?.SentLast24Hours ?? 0,
  };
}
