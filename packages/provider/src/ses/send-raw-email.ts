import { SendEmailCommand, type SESv2Client } from "@aws-sdk/client-sesv2";

export interface SendRawEmailInput {
  /** Envelope sender; must be (or belong to) a verified identity. */
  from: string;
  to: string[];
  cc?: string[];
  /** Bcc lives only in the envelope: SES delivers to it but the MIME must not carry a Bcc header. */
  bcc?: string[];
  /** The complete RFC 5322 message (headers + body) as built by the content package. */
  raw: Buffer;
  /** Configuration set whose event destination publishes Send/Delivery/Bounce/… to SNS. */
  configurationSet?: string;
  /** SES message tags (event publishing echoes them back in `mail.tags`). */
  tags?: Record<string, string>;
  /** This call's request timeout (ms), shorter than the client's when a caller's deadline is nearer. */
  requestTimeout?: number;
}

export interface SendRawEmailResult {
  messageId: string;
}

/** Sends a pre-built MIME message; the envelope recipients come from `to`/`cc`/`bcc`, not from the headers. */
export async function sendRawEmail(ses: SESv2Client, input: SendRawEmailInput): Promise<SendRawEmailResult> {
  const out = await ses.send(
    new SendEmailCommand({
      FromEmailAddress: input.from,
      Destination: {
        ToAddresses: input.to,
        ...(input.cc?.length ? { CcAddresses: input.cc } : {}),
        ...(input.bcc?.length ? { BccAddresses: input.bcc } : {}),
      },
      Content: { Raw: { Data: input.raw } },
      ...(input.configurationSet ? { ConfigurationSetName: input.configurationSet } : {}),
      ...(input.tags
        ? { EmailTags: Object.entries(input.tags).map(([Name, Value]) => ({ Name, Value })) }
        : {}),
    }),
    // No options object without a per-call timeout: with one, even `{}`, the client resolves the command's middleware
    // stack again (smithy's send uses its handler cache only when called without options), and `cacheMiddleware`
    // saved nothing on the send-worker's hot path.
    input.requestTimeout !== undefined ? { requestTimeout: input.requestTimeout } : undefined,
  );
  if (!out.MessageId) throw new Error("SES SendEmail answered without a MessageId");
  return { messageId: out.MessageId };
}
