export type VerificationState = "PENDING" | "SUCCESS" | "FAILED" | "TEMPORARY_FAILURE" | "NOT_STARTED";

/** One message SES "accepted": a SendEmail call or an identity verification mail. */
export interface SimMessage {
  /** The SES MessageId returned to the caller. */
  id: string;
  kind: "email" | "verification";
  timestamp: string;
  receivedAtMs: number;
  /** Envelope sender (FromEmailAddress, else the From header). */
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  /** All envelope recipients: the addresses notifications are about. */
  destination: string[];
  subject: string;
  /** Message-ID header of the MIME (not the SES id). */
  headerMessageId?: string;
  /**
   * The Message-ID the delivered email carries: SES overrides the MIME's with `<id>@email.amazonses.com`
   * (`<region>.amazonses.com` outside us-east-1). What a reply's In-Reply-To names.
   */
  deliveredMessageId: string;
  headers: { name: string; value: string }[];
  raw: string;
  configurationSet?: string;
  tags: Record<string, string>;
}

export interface SimIdentity {
  identity: string;
  type: "DOMAIN" | "EMAIL_ADDRESS";
  verificationStatus: VerificationState;
  dkimStatus: VerificationState;
  dkimTokens: string[];
  mailFromDomain?: string;
  mailFromStatus?: Exclude<VerificationState, "NOT_STARTED">;
  behaviorOnMxFailure: "USE_DEFAULT_VALUE" | "REJECT_MESSAGE";
  configurationSetName?: string;
  tags: { Key: string; Value: string }[];
  createdAt: string;
}

export interface InjectedInbound {
  messageId: string;
  timestamp: string;
  source: string;
  destination: string[];
  bucketName?: string;
  objectKey?: string;
  raw: string;
}

/** A SendBounce call (SES v1): a received message bounced back to its sender. */
export interface SimBounce {
  messageId: string;
  originalMessageId: string;
  bounceSender: string;
  explanation: string;
  /** the original message's sender, who receives the bounce */
  to: string;
  recipients: { recipient: string; bounceType?: string; status?: string; diagnosticCode?: string }[];
  timestamp: string;
}

/** A signed SNS notification the simulator built, and what became of posting it. */
export interface NotificationRecord {
  snsMessageId: string;
  topic: "events" | "inbound";
  /** SES eventType (Send/Delivery/…) or "Received" for inbound mail. */
  eventType: string;
  sesMessageId: string;
  url: string | null;
  status: "pending" | "delivered" | "failed" | "skipped";
  attempts: number;
  lastError?: string;
  /** The SNS message; carries Signature/SigningCertURL once it has been posted (unsigned when skipped). */
  body: Record<string, unknown>;
}

/** A scripted failure: the next `count` SES calls of `operation` answer this error. */
export interface FaultSpec {
  count: number;
  status: number;
  errorType: string;
  message: string;
  operation: "SendEmail" | "SendBounce" | "any";
}

export interface RuntimeConfig {
  latencyMs: number;
  /** null = unlimited. */
  maxSendRate: number | null;
  notificationUrl: string | null;
  inboundNotificationUrl: string | null;
  /** When true, SendEmail answers MessageRejected unless the sender's address or domain is verified. */
  enforceVerifiedSenders: boolean;
  fault: FaultSpec | null;
  /** The latest messages kept for `/_sim/messages` (older ones are dropped; counts stay exact). */
  maxMessagesKept: number;
  /** GetAccount's SendQuota.Max24HourSend (a test lowers it to see a sender's 24-hour quota run out). */
  max24HourSend: number;
}

/**
 * A SubscriptionConfirmation posted through `POST /_sim/subscribe`, and whether its SubscribeURL was visited (what
 * a receiver that confirms automatically does: spec 4.9).
 */
export interface SimSubscription {
  /** inbound: the inbound-mail receiver; provider: notification-ingest */
  target: "inbound" | "provider";
  url: string;
  topicArn: string;
  messageId: string;
  token: string;
  subscribeUrl: string;
  postedAt: string;
  /** the receiver's answer to the POST (null: it could not be reached) */
  answer: { status: number; body: string } | null;
  error?: string;
  /** when the SubscribeURL was visited, and by whom; null until then */
  confirmedAt: string | null;
  confirmedBy: string | null;
  subscriptionArn: string | null;
}
