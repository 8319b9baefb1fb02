/**
 * The SES "Received" notification (email receiving) inside an SNS Notification's `Message`, reduced to what
 * inbound-mail keeps. Fields as SES names them: `mail` (`source`, `destination[]`, `messageId`), `receipt`
 * (`recipients[]`, the verdicts, `action`: S3 with `bucketName`/`objectKey`, or SNS with the MIME in `content`).
 */
export interface ReceivedNotification {
  sesMessageId: string;
  source: string | null;
  recipients: string[];
  action: { type: "S3"; bucketName: string; objectKey: string } | { type: "SNS"; content: string };
  verdicts: Verdicts;
}

/** SES verdict statuses as received (`PASS`, `FAIL`, `GRAY`, `PROCESSING_FAILED`), or null when absent. */
export interface Verdicts {
  spam: string | null;
  virus: string | null;
  spf: string | null;
  dkim: string | null;
  dmarc: string | null;
  /** The sender domain's DMARC policy (`none`, `quarantine`, `reject`) when SES reports one. */
  dmarc_policy: string | null;
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const verdict = (v: unknown): string | null =>
  v && typeof v === "object" ? (str((v as { status?: unknown }).status)?.toUpperCase() ?? null) : null;

/** Why a notification is not one this receiver takes (answered 400), or the notification. */
export function readReceivedNotification(message: string): ReceivedNotification | string {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(message) as Record<string, unknown>;
  } catch {
    return "Message is not JSON";
  }
  if (!m || typeof m !== "object") return "Message is not a JSON object";
  const type = m.notificationType ?? m.eventType;
  if (type !== "Received") return `not a Received notification (${String(type)})`;
  const mail = (m.mail ?? {}) as Record<string, unknown>;
  const receipt = (m.receipt ?? {}) as Record<string, unknown>;
  const sesMessageId = str(mail.messageId);
  if (!sesMessageId) return "mail.messageId is missing";
  const action = (receipt.action ?? {}) as Record<string, unknown>;
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const recipients = list(receipt.recipients).length ? list(receipt.recipients) : list(mail.destination);
  let parsedAction: ReceivedNotification["action"];
  if (action.type === "S3") {
    const bucketName = str(action.bucketName);
    const objectKey = str(action.objectKey);
    if (!bucketName || !objectKey) return "receipt.action has no bucketName or objectKey";
    // S3's own limit: a longer key names no object, and its fetch was retried for minutes
    if (Buffer.byteLength(objectKey) > 1024)
      return "receipt.action.objectKey is longer than S3's 1,024 bytes";
    parsedAction = { type: "S3", bucketName, objectKey };
  } else if (action.type === "SNS") {
    const content = str(m.content);
    if (!content) return "an SNS action without content";
    // SES's SNS action may encode the MIME in base64 (`encoding: BASE64`).
    parsedAction = {
      type: "SNS",
      content: action.encoding === "BASE64" ? Buffer.from(content, "base64").toString("latin1") : content,
    };
  } else {
    // at most 60 characters of the value: the answer and its log line do not echo a long one back
    return `receipt.action.type ${String(action.type).slice(0, 60)} is not S3 or SNS`;
  }
  const n: ReceivedNotification = {
    sesMessageId,
    source: str(mail.source),
    recipients,
    action: parsedAction,
    verdicts: {
      spam: verdict(receipt.spamVerdict),
      virus: verdict(receipt.virusVerdict),
      spf: verdict(receipt.spfVerdict),
      dkim: verdict(receipt.dkimVerdict),
      dmarc: verdict(receipt.dmarcVerdict),
      dmarc_policy: str(receipt.dmarcPolicy)?.toLowerCase() ?? null,
    },
  };
  // each stored field, as SES names it
  const kept: Record<string, string | null> = {
    "mail.messageId": n.sesMessageId,
    "mail.source": n.source,
    "receipt.recipients": n.recipients.join(","),
    "receipt.action.bucketName": n.action.type === "S3" ? n.action.bucketName : null,
    "receipt.action.objectKey": n.action.type === "S3" ? n.action.objectKey : null,
    content: n.action.type === "SNS" ? n.action.content : null,
    "receipt.spamVerdict": n.verdicts.spam,
    "receipt.virusVerdict": n.verdicts.virus,
    "receipt.spfVerdict": n.verdicts.spf,
    "receipt.dkimVerdict": n.verdicts.dkim,
    "receipt.dmarcVerdict": n.verdicts.dmarc,
    "receipt.dmarcPolicy": n.verdicts.dmarc_policy,
  };
  const bad = Object.keys(kept).find((k) => kept[k] !== null && !storableText(kept[k]!));
  return bad ? `${bad} contains a NUL character or an unpaired surrogate` : n;
}

/**
 * Text PostgreSQL can store: no NUL and no unpaired UTF-16 surrogate (JSON can escape either; text refuses the
 * one, jsonb both). The insert failed with a 500, which SNS retries for as long as its policy lasts.
 */
export const storableText = (s: string): boolean =>
  !s.includes("\0") && (s as unknown as { isWellFormed(): boolean }).isWellFormed();
