import { createHash } from "node:crypto";
import { type AddressObject, type EmailAddress, simpleParser } from "mailparser";
import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { timeOrderedUuid } from "@emailsvc/db";
import { checkSenderAndFilter, type SuppressionOutcome } from "@emailsvc/sending";
import type { Deps } from "../deps";
import { checkAttachments } from "./domain/attachments";
import { keptHeaders } from "./domain/kept-headers";
import { splitRecipients } from "./domain/recipients";
import { storeAttachments } from "./store-attachments";

export type RelayDeps = Pick<Deps, "db" | "outbox" | "accepts" | "attachments">;

/** Who authenticated: the API key's project and mode (`test` keys make test sends, as on the HTTP API). */
export interface RelayAuth {
  projectId: ProjectId;
  mode: "live" | "test";
}

export interface SmtpMessage {
  auth: RelayAuth;
  /** RCPT TO addresses, in order. */
  recipients: readonly string[];
  raw: Buffer;
  /** The SMTP session id: the correlation id of the send. */
  sessionId?: string;
}

export type RelayOutcome =
  /** Rows and outbox entry committed: the activities, one per `to` recipient. */
  | { kind: "queued"; activityIds: string[]; emailMessageId: string }
  /** An earlier attempt with the same Message-ID committed: nothing new was written. */
  | { kind: "replayed"; emailMessageId: string | null }
  /** Every `to` recipient is suppressed: nothing was sent, as /v1/send-email's `skipped` answer. */
  | { kind: "suppressed"; recipient: string; reason: string };

const addresses = (field: AddressObject | AddressObject[] | undefined): EmailAddress[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((o) =>
    o.value.flatMap((a) => (a.group ? a.group : [a])),
  );
const emails = (field: AddressObject | AddressObject[] | undefined): string[] =>
  addresses(field).flatMap((a) => (a.address ? [a.address] : []));

/** NUL characters (no place in RFC 5322 text, and refused by PostgreSQL's text and jsonb) dropped. */
const noNul = <T extends string | null | undefined>(s: T): T => (s ? s.replace(/\0/g, "") : s) as T;

const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

/**
 * A message received over SMTP into the send model of /v1/send-email: parsed with mailparser; the From: header's
 * address must be a verified sender of the key's project (MAIL FROM was checked at its command); attachments
 * follow spec 8's rules; suppressed recipients are skipped as v1 does (cc/bcc dropped silently; no `to` left:
 * nothing is sent and the answer says so); then the attachments go to S3 and one accept statement (group-committed
 * with other connections' messages, as public-api's) writes the message, its activities, reply tokens and the
 * outbox row. The caller answers 250 only after this resolves.
 *
 * A client that lost our 250 sends the same message again: the Message-ID, hashed and scoped to the project, is
 * `acceptSend`'s idempotency key, so the retry replays the first answer instead of sending twice.
 */
export async function acceptSmtpMessage(deps: RelayDeps, msg: SmtpMessage): Promise<RelayOutcome> {
  // No text made from the HTML (mailparser's html-to-text was 3/4 of a parse): a message without a text part is
  // stored with text null, as /v1/send-email stores an html_body alone, and the send-worker makes its text part
  // from the HTML with the same rules for both.
  // A message mailparser cannot take (a header past its limits…) is refused for good (554 5.6.0), never the
  // temporary 451 of our own failures, which a client would retry for days (found by test/fuzz.int.test.ts).
  const parsed = await simpleParser(msg.raw, {
    skipImageLinks: true,
    skipTextLinks: true,
    skipHtmlToText: true,
  }).catch((err: unknown) => {
    throw new AppError(
      ErrorCode.VALIDATION,
      `The message cannot be parsed: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  const from = addresses(parsed.from)[0];
  if (!from?.address) throw new AppError(ErrorCode.VALIDATION, "The message has no From: address");
  const checked = checkAttachments(
    parsed.attachments.map((a) => ({
      filename: noNul(a.filename),
      contentType: noNul(a.contentType),
      content: a.content,
    })),
  );
  const { projectId, mode } = msg.auth;
  const requested = splitRecipients(msg.recipients, { to: emails(parsed.to), cc: emails(parsed.cc) });
  const subject = noNul(parsed.subject ?? "");
  const idempotency = parsed.messageId
    ? {
        key: `smtp:${sha256(parsed.messageId)}`,
        // The same Message-ID for other recipients or another subject is another message: refused, not replayed.
        fingerprint: sha256(JSON.stringify([from.address, [...msg.recipients].sort(), subject])),
      }
    : null;
  const content = {
    projectId,
    isTest: mode === "test",
    counted: mode === "live",
    source: "smtp",
    emailType: "transactional",
    lane: "transactional",
    fromEmail: from.address,
    fromName: noNul(from.name) || null,
    subject,
    html: noNul(parsed.html || parsed.textAsHtml || ""),
    text: noNul(parsed.text ?? null),
    headers: keptHeaders(parsed.headerLines.map((h) => ({ key: h.key, line: noNul(h.line) }))),
    templateId: null,
    campaignId: null,
    automationRunId: null,
    replyTokens: true,
    enqueue: true,
    ...(msg.sessionId ? { correlationId: msg.sessionId } : {}),
  } as const;
  const accept = async (lists: SuppressionOutcome, gates?: { sender: string; addresses: string[] }) => {
    const emailMessageId = timeOrderedUuid();
    const stored = await storeAttachments(deps.attachments, checked, `${projectId}/${emailMessageId}`);
    const result = await deps.accepts.submit({
      ...content,
      emailMessageId,
      cc: lists.cc,
      bcc: lists.bcc,
      attachments: stored,
      recipients: lists.to,
      ...(gates ? { gates } : {}),
      ...(idempotency
        ? { idempotency: { ...idempotency, response: { status: 250, body: { email_id: emailMessageId } } } }
        : {}),
    });
    return { result, emailMessageId };
  };

  // The usual message (the From: sender verified, no recipient suppressed) costs one statement, shared with the
  // messages of other connections: the From: check and the suppressions ride inside the accept (`gates`). When
  // they refuse, nothing was written, and the checks made on their own say why (550 for the sender, or the lists
  // without the suppressed addresses). A message with attachments is checked first: its attachments go to S3
  // before the accept, which must never happen for a sender that is refused.
  let outcome: Awaited<ReturnType<typeof accept>> | null = null;
  if (checked.length === 0) {
    const { to, cc, bcc } = requested;
    outcome = await accept(
      { to: [...to], cc: [...cc], bcc: [...bcc], skipped: [] },
      { sender: from.address, addresses: [...to, ...cc, ...bcc] },
    );
    if (outcome.result.kind === "gates_refused") outcome = null;
  }
  if (!outcome) {
    const lists = await checkSenderAndFilter(deps.db, projectId, from.address, requested);
    if (lists.to.length === 0) return { kind: "suppressed", ...lists.skipped[0]! };
    outcome = await accept(lists);
  }
  const { result, emailMessageId } = outcome;
  if (result.kind === "replay") {
    const body = result.response.body as { email_id?: string } | null;
    return { kind: "replayed", emailMessageId: body?.email_id ?? null };
  }
  // Without `gates` (the checks ran above) the statement cannot refuse on them.
  if (result.kind !== "accepted") throw new Error("unreachable: accept without gates was refused");
  if (!result.outboxHanded) deps.outbox.kick();
  return { kind: "queued", activityIds: result.activities.map((a) => a.id), emailMessageId };
}
