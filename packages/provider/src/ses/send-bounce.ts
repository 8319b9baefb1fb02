import { SESClient, SendBounceCommand } from "@aws-sdk/client-ses";
import type { ProviderConfig } from "../config";
import { commonOptions } from "../clients";

/** SendBounce exists only in the SES v1 API (`@aws-sdk/client-ses`); inbound-mail is its one caller. */
export type SesV1Client = SESClient;

export function createSesV1Client(cfg: ProviderConfig): SESClient {
  return new SESClient(commonOptions(cfg));
}

export interface SendBounceInput {
  /** SES `mail.messageId` of the received message (SES bounces only mail it received in the last 24 hours). */
  originalMessageId: string;
  /** The address the bounce comes from, at a domain verified for receiving (e.g. `MAILER-DAEMON@<inbound>`). */
  bounceSender: string;
  /** Human-readable text SES puts at the top of the bounce. */
  explanation: string;
  /** Our addresses that refuse it, with the SMTP status SES writes for each. */
  recipients: string[];
  /** SMTP status of each recipient, e.g. `5.3.4` (message too big for system). */
  status?: string;
  bounceType?: "MessageTooLarge" | "ContentRejected" | "DoesNotExist" | "Undefined";
}

/** Bounces a received message back to its sender; resolves with the bounce's own message id. */
export async function sendBounce(ses: SESClient, input: SendBounceInput): Promise<{ messageId: string }> {
  const out = await ses.send(
    new SendBounceCommand({
      OriginalMessageId: input.originalMessageId,
      BounceSender: input.bounceSender,
      Explanation: input.explanation,
      // The reporting MTA is our receiving domain; each recipient carries the DSN fields of the refusal.
      MessageDsn: { ReportingMta: `dns; ${input.bounceSender.split("@").pop() ?? "localhost"}` },
      BouncedRecipientInfoList: input.recipients.map((Recipient) => ({
        Recipient,
        BounceType: input.bounceType ?? "MessageTooLarge",
        RecipientDsnFields: {
          Action: "failed",
          Status: input.status ?? "5.3.4",
          DiagnosticCode: `smtp; 552 ${input.status ?? "5.3.4"} ${input.explanation}`,
        },
      })),
    }),
  );
  return { messageId: out.MessageId ?? "" };
}

/**
 * The domain of the Message-ID SES writes into every email it sends (it overrides the one in the MIME):
 * `<messageId>@email.amazonses.com` in us-east-1, `<messageId>@<region>.amazonses.com` elsewhere.
 */
export function sesMessageIdDomain(region: string): string {
  return region === "us-east-1" ? "email.amazonses.com" : `${region}.amazonses.com`;
}
