/** The JSON body SNS POSTs to an HTTP(S) subscriber (fields as SNS names them). */
export interface SnsMessage {
  Type: "Notification" | "SubscriptionConfirmation" | "UnsubscribeConfirmation" | string;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  Subject?: string | null;
  Token?: string;
  SubscribeURL?: string;
  UnsubscribeURL?: string;
  SignatureVersion?: string;
  Signature?: string;
  SigningCertURL?: string;
}

export type UnsignedSnsMessage = Omit<SnsMessage, "Signature" | "SignatureVersion" | "SigningCertURL">;

const NOTIFICATION_KEYS = ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"] as const;
const CONFIRMATION_KEYS = [
  "Message",
  "MessageId",
  "SubscribeURL",
  "Timestamp",
  "Token",
  "TopicArn",
  "Type",
] as const;

/**
 * The canonical text SNS signs: `Key\nValue\n` for a fixed, type-dependent list of keys in byte order, skipping
 * keys that are absent (Subject is optional on notifications). Same rule for SignatureVersion 1 and 2.
 */
export function snsStringToSign(msg: SnsMessage | UnsignedSnsMessage): string {
  const keys =
    msg.Type === "Notification"
      ? NOTIFICATION_KEYS
      : msg.Type === "SubscriptionConfirmation" || msg.Type === "UnsubscribeConfirmation"
        ? CONFIRMATION_KEYS
        : null;
  if (!keys) throw new Error(`Unsupported SNS message Type: ${String(msg.Type)}`);
  let out = "";
  for (const key of keys) {
    const value = (msg as unknown as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    out += `${key}\n${String(value)}\n`;
  }
  return out;
}
