import { randomUUID } from "node:crypto";
import { isEmailAddress, isUuid } from "@emailsvc/contracts";
import { AppError, ErrorCode, type AuthContext, type IdempotencyContext } from "@emailsvc/http";
import { projectDefaultTimezone, timeOrderedUuid } from "@emailsvc/db";
import {
  checkSenderAndSuppressions,
  existingIdempotentResponse,
  insertBatch,
  jsonArrayInSlices,
  loadTemplate,
  MSG_QUOTA_EXCEEDED,
  nextTurn,
  senderNotVerified,
  SLICE,
} from "@emailsvc/sending";
import { parseSchedule, ScheduleError } from "./domain/scheduling/parse-schedule";
import type { SendDeps, SendOutcome } from "./send-deps";

export const MAX_BATCH = 12_500;
const bad = (message: string) => new AppError(ErrorCode.VALIDATION, message);

/** The batch answer and its JSON text, serialized once (a slice of activities per event-loop turn). */
export interface BatchOutcome extends SendOutcome {
  bodyJson?: string;
}
const present = (v: unknown) => typeof v === "string" && v.trim() !== "";

const TEXT_FIELDS = [
  ["sender", 254],
  ["senderName", 200],
  ["subject", 998],
  ["html", 5_000_000],
  ["email_type", 50],
  ["templateId", 100],
] as const;

interface Recipient {
  email: string;
  data: Record<string, unknown>;
}

/** Spec 4.3 validation, in the spec's order and words; a plain loop, in slices of SLICE recipients. */
async function validate(body: Record<string, unknown>) {
  // A value of another type is named as such, in the same order as the spec's messages.
  const typed = (f: "sender" | "subject" | "html" | "templateId") => {
    if (body[f] != null && typeof body[f] !== "string") throw bad(`${f} must be a string`);
  };
  typed("sender");
  if (!present(body.sender)) throw bad("sender is required");
  // The single sends' address rule: "Demo <a@b>", a CR/LF or a second "@" would otherwise reach the From header.
  if (!isEmailAddress(String(body.sender).trim()))
    throw bad(`sender is not a valid email address: ${String(body.sender).trim()}`);
  typed("templateId");
  typed("subject");
  typed("html");
  const templateId = present(body.templateId) ? String(body.templateId).trim() : null;
  if (!templateId && !present(body.subject)) throw bad("subject or templateId is required");
  if (!templateId && !present(body.html)) throw bad("html or templateId is required");
  const list = body.recipients;
  if (!Array.isArray(list) || list.length === 0)
    throw bad("recipients array is required and must not be empty");
  if (list.length > MAX_BATCH) throw bad(`Too many recipients: ${list.length}. Maximum is 12,500 per batch.`);
  const recipients: Recipient[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    if (i > 0 && i % SLICE === 0) await nextTurn();
    const r = list[i] as { email?: unknown; data?: unknown } | null;
    const email = r && typeof r === "object" && typeof r.email === "string" ? r.email.trim() : "";
    if (!email) throw bad(`recipients[${i}].email is required`);
    // The same address rules as the single send endpoints (contracts' isEmailAddress).
    if (!isEmailAddress(email)) throw bad(`recipients[${i}].email is not a valid email address`);
    const data = r!.data;
    if (data !== undefined && data !== null && (typeof data !== "object" || Array.isArray(data)))
      throw bad(`recipients[${i}].data must be an object`);
    // kept as written (RFC 5321 2.4); suppressions are matched on the lower-cased form
    recipients[i] = { email, data: (data as Record<string, unknown>) ?? {} };
  }
  // The single send endpoints' caps (contracts): every header line stays within RFC 5322's 998 characters.
  for (const [f, max] of TEXT_FIELDS) {
    const v = body[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw bad(`${f} must be a string`);
    if (v.length > max) throw bad(`${f} must be at most ${max} characters`);
  }
  // (its length rule belongs to parseSchedule)
  if (body.scheduled_at != null && typeof body.scheduled_at !== "string")
    throw bad("scheduled_at must be a string");
  if (templateId && !isUuid(templateId)) throw bad("templateId must be a template UUID");
  return {
    sender: String(body.sender).trim().toLowerCase(),
    senderName: present(body.senderName) ? String(body.senderName).trim() : null,
    subject: present(body.subject) ? String(body.subject) : null,
    html: present(body.html) ? String(body.html) : null,
    templateId,
    emailType: present(body.email_type) ? String(body.email_type).trim() : "marketing",
    // absent or null: now; a blank string goes to parseSchedule, which refuses it (400)
    scheduledAt: body.scheduled_at == null ? null : String(body.scheduled_at),
    recipients,
  };
}

/**
 * POST /v1/send-batch (spec 4.3). Accepting is one statement (`insertBatch`): batch, one email_messages row (the
 * template or subject/html, rendered per recipient by the worker from each activity's `data`), one activity per
 * recipient, reply tokens, the idempotency row, the quota, and the outbox rows (or the scheduled send). Either
 * every activity is stored and will be sent, or nothing is.
 * Suppressed recipients keep their place in `activities` with `activity_id: null`, `skipped: true` and the
 * `suppression_reason`; they are not counted in `queued` and nothing is sent to them.
 */
export async function acceptBatch(
  deps: SendDeps,
  ctx: {
    auth: AuthContext;
    idempotency?: IdempotencyContext | undefined;
    correlationId?: string | undefined;
  },
  rawBody: unknown,
): Promise<BatchOutcome> {
  const body = await validate(
    rawBody && typeof rawBody === "object" && !Array.isArray(rawBody)
      ? (rawBody as Record<string, unknown>)
      : {},
  );
  const { projectId, mode } = ctx.auth;
  const isTest = mode === "test";

  let schedule: ReturnType<typeof parseSchedule> | null = null;
  if (body.scheduledAt !== null) {
    const defaultTimezone = await projectDefaultTimezone(deps.db, projectId);
    try {
      schedule = parseSchedule({
        scheduledAt: body.scheduledAt,
        defaultTimezone,
        now: new Date(),
      });
    } catch (err) {
      if (err instanceof ScheduleError) throw bad(err.message);
      throw err;
    }
  }
  let subject = body.subject;
  let html = body.html;
  let text: string | null = null;
  if (body.templateId) {
    const loaded = await loadTemplate(deps, projectId, { id: body.templateId });
    if (!loaded) throw new AppError(ErrorCode.NOT_FOUND, "Template not found");
    subject = subject ?? loaded.template.subject;
    html = loaded.template.html;
    text = loaded.template.text;
  }
  const { verification, suppressed } = await checkSenderAndSuppressions(
    deps.db,
    projectId,
    body.sender,
    body.recipients.map((r) => r.email),
  );
  if (!verification.verified) throw senderNotVerified(body.sender);
  const batchId = randomUUID();
  const emailMessageId = timeOrderedUuid();
  const scheduledSendId = schedule ? randomUUID() : null;
  const now = Date.now();
  const ids: string[] = [];
  const emails: string[] = [];
  const data: Record<string, unknown>[] = [];
  const activities: (
    | { email: string; activity_id: string }
    | { email: string; activity_id: null; skipped: true; suppression_reason: string }
  )[] = new Array(body.recipients.length);
  for (let i = 0; i < body.recipients.length; i++) {
    if (i > 0 && i % SLICE === 0) await nextTurn();
    const r = body.recipients[i]!;
    const reason = suppressed.get(r.email.toLowerCase());
    if (reason) {
      activities[i] = { email: r.email, activity_id: null, skipped: true, suppression_reason: reason };
      continue;
    }
    const id = timeOrderedUuid(now);
    ids.push(id);
    emails.push(r.email);
    data.push(r.data);
    activities[i] = { email: r.email, activity_id: id };
  }
  const head = {
    batch_id: batchId,
    total: body.recipients.length,
    queued: ids.length,
    scheduled: schedule !== null,
    scheduled_for: schedule ? schedule.instant.toISOString() : null,
    // Only when something was scheduled: a batch whose recipients are all suppressed stores no scheduled send.
    ...(scheduledSendId && ids.length ? { scheduled_send_id: scheduledSendId } : {}),
  };
  const response = { status: 200, body: { ...head, activities } };
  // The same text as JSON.stringify(response.body) (activities come last), written once for the idempotency row
  // and the reply: a 12,500-recipient answer is about 1 MB, whose stringify held the event loop in one piece.
  const bodyJson = `${JSON.stringify(head).slice(0, -1)},"activities":${await jsonArrayInSlices(activities)}}`;

  let result: Awaited<ReturnType<typeof insertBatch>>;
  try {
    result = await insertBatch(deps.db, {
      projectId,
      batchId,
      emailMessageId,
      isTest,
      emailType: body.emailType,
      fromEmail: body.sender,
      fromName: body.senderName,
      subject,
      html,
      text,
      templateId: body.templateId,
      total: body.recipients.length,
      schedule:
        schedule && scheduledSendId
          ? {
              id: scheduledSendId,
              scheduledFor: schedule.instant,
              timezone: schedule.timezone,
              localTime: schedule.local,
              request: { scheduled_at: body.scheduledAt },
            }
          : null,
      activityIds: ids,
      emails,
      data,
      // workers spread a big batch over many messages (SEND_REQUESTED_MAX_IDS ids each)
      // marketing batches are bulk mail (ARCHITECTURE.md); transactional ones, past the project's fair share too
      lane:
        body.emailType !== "transactional"
          ? "bulk"
          : ((await deps.laneFor?.(projectId, ids.length)) ?? "transactional"),
      requests: { correlationId: ctx.correlationId },
      counted: !isTest,
      idempotency: ctx.idempotency ? { ...ctx.idempotency, status: response.status, bodyJson } : null,
    });
  } catch (err) {
    throw new AppError(ErrorCode.INTERNAL, "Failed to process batch", { cause: err });
  }
  if (result === "quota_exceeded") throw new AppError(ErrorCode.QUOTA_EXCEEDED, MSG_QUOTA_EXCEEDED);
  if (result === "idempotency_conflict") {
    // Answers 422 (another request used the key) or 409 (it is still running) by throwing, else replays.
    const r = ctx.idempotency
      ? await existingIdempotentResponse(deps.db, projectId, ctx.idempotency.key, ctx.idempotency.fingerprint)
      : null;
    if (r?.kind === "replay") return { ...r.response, replayed: true };
    throw new AppError(ErrorCode.INTERNAL, "Failed to process batch");
  }
  deps.outbox.kick();
  return { ...response, bodyJson };
}
