import { randomUUID } from "node:crypto";
import {
  AppError,
  ErrorCode,
  internalSendEmailBody,
  isUuid,
  missingFieldMessage,
  type ProjectId,
} from "@emailsvc/contracts";
import { renderDoubleBraces, renderTemplate } from "@emailsvc/content";
import { findProjectId, projectDefaultTimezone, timeOrderedUuid } from "@emailsvc/db";
import { checkAttachments, checkAttachmentUrls, storeAttachments } from "./attachments/prepare-attachments";
import { bodyObject, isMissing, parseBody } from "./domain/parse-body";
import { distinctLists } from "./domain/recipients";
import {
  acceptSend,
  checkSenderAndFilter,
  loadTemplate,
  skippedBody,
  type TemplateRef,
} from "@emailsvc/sending";
import { parseSchedule, type Schedule, ScheduleError } from "./domain/scheduling/parse-schedule";
import { sendNow } from "./send-now";
import { rendered } from "./domain/rendered";
import type { SendDeps, SendOutcome } from "./send-deps";
import { positiveInt, MSG_TEMPLATE_NOT_FOUND } from "./send-template-email";

export const MSG_SENT = "Email sent successfully";

export interface InternalSendContext {
  /** `x-project-id`, as received (checked here). */
  projectHeader: string | undefined;
  /** `x-source`; `platform` marks dashboard sends (no token Reply-To). */
  source: string | undefined;
  correlationId?: string;
}

async function resolveProject(deps: SendDeps, header: string | undefined): Promise<ProjectId | null> {
  if (header === undefined || header.trim() === "") return null;
  const id = header.trim();
  if (!isUuid(id)) throw new AppError(ErrorCode.VALIDATION, "x-project-id must be a project UUID");
  const found = await findProjectId(deps.db, id);
  if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
  return found;
}

/** `templateId` is a template UUID or, as a convenience, its per-project internal id. */
function templateRef(templateId: string): TemplateRef | null {
  if (isUuid(templateId)) return { id: templateId };
  const internalId = positiveInt(templateId);
  return internalId === null ? null : { internalId };
}

/**
 * Internal POST /send-email (spec 4.4), immediate sends: the same rows as an API send (without the outbox row),
 * then the send-worker is asked over RPC to send each activity now, and its answer becomes 200 / 502 / 504.
 * Without `x-project-id` nothing is tied to a project: no sender verification, suppression, Reply-To token or
 * quota, and `activityId` is null (the activity row still exists: it is what the worker sends from).
 */
export async function internalSendEmail(
  deps: SendDeps,
  ctx: InternalSendContext,
  rawBody: unknown,
): Promise<SendOutcome> {
  const raw = bodyObject(rawBody);
  for (const field of ["recipient", "sender", "subject"] as const) {
    if (isMissing(raw[field])) throw new AppError(ErrorCode.VALIDATION, missingFieldMessage(field));
  }
  if (isMissing(raw.html) && isMissing(raw.templateId))
    throw new AppError(ErrorCode.VALIDATION, missingFieldMessage("html"));
  const body = parseBody(internalSendEmailBody, raw);
  const checked = checkAttachments(body.attachments ?? []);
  checkAttachmentUrls(deps.downloader, checked);
  const projectId = await resolveProject(deps, ctx.projectHeader);
  // Absent or null: now. A blank string is a bad value (400), not a request to send at once.
  const schedule =
    raw.scheduled_at === undefined || raw.scheduled_at === null
      ? null
      : await readSchedule(deps, projectId, raw.scheduled_at, raw.timezone);
  const scheduledSendId = schedule ? randomUUID() : null;
  const isPlatform = ctx.source?.trim().toLowerCase() === "platform";

  const data = body.data ?? undefined;
  const subject = rendered("subject", () => renderDoubleBraces(body.subject, data, { html: false }));
  let html: string;
  let text: string | null;
  if (body.templateId) {
    if (!projectId) throw new AppError(ErrorCode.VALIDATION, "templateId requires the x-project-id header");
    const ref = templateRef(body.templateId);
    const loaded = ref ? await loadTemplate(deps, projectId, ref) : null;
    if (!loaded) throw new AppError(ErrorCode.NOT_FOUND, MSG_TEMPLATE_NOT_FOUND);
    html = rendered("html", () => renderTemplate(loaded.template.html, data, { html: true })).text;
    const textSource = body.text ?? loaded.template.text;
    text = textSource ? rendered("text", () => renderTemplate(textSource, data, { html: false })).text : null;
  } else {
    html = rendered("html", () => renderDoubleBraces(body.html!, data, { html: true })).text;
    text = body.text
      ? rendered("text", () => renderDoubleBraces(body.text!, data, { html: false })).text
      : null;
  }

  let lists = distinctLists({ to: body.recipient, cc: body.cc ?? [], bcc: body.bcc ?? [] });
  if (projectId) {
    const filtered = await checkSenderAndFilter(deps.db, projectId, body.sender, lists);
    if (filtered.to.length === 0)
      return { status: 200, body: { success: true, ...skippedBody(filtered.skipped[0]!) } };
    lists = filtered;
  }

  const emailMessageId = timeOrderedUuid();
  const attachments = await storeAttachments(deps, checked, `${projectId ?? "internal"}/${emailMessageId}`);
  const accepted = await acceptSend(deps.db, {
    emailMessageId,
    projectId,
    isTest: false,
    counted: projectId !== null,
    source: isPlatform ? "platform" : "internal",
    emailType: body.email_type ?? "transactional",
    fromEmail: body.sender,
    fromName: body.senderName ?? null,
    subject: subject.text,
    html,
    text,
    cc: lists.cc,
    bcc: lists.bcc,
    headers: body.custom_headers ?? null,
    attachments,
    templateId: null,
    campaignId: body.campaign_id ?? null,
    automationRunId: body.automation_run_id ?? null,
    recipients: lists.to,
    replyTokens: projectId !== null && !isPlatform,
    enqueue: false,
    ...(ctx.correlationId ? { correlationId: ctx.correlationId } : {}),
    ...(schedule
      ? {
          scheduled: {
            id: scheduledSendId!,
            scheduledFor: schedule.instant,
            timezone: schedule.timezone,
            localTime: schedule.local,
            request: { scheduled_at: raw.scheduled_at, timezone: raw.timezone ?? null },
          },
        }
      : {}),
  });
  if (accepted.kind !== "accepted") throw new Error("unreachable: internal sends carry no idempotency key");
  if (schedule) return scheduledResponse(scheduledSendId!, schedule);

  const sent = await sendNow(deps, projectId, accepted, ctx.correlationId);
  return {
    status: 200,
    body: {
      success: true,
      messageId: sent.providerMessageIds[0],
      activityId: projectId ? accepted.activities[0]!.id : null,
      message: MSG_SENT,
      ...(attachments.length ? { attachments_sent: attachments.length } : {}),
    },
  };
}

/** Spec 4.5: `scheduled_at` + `timezone` (default: the project's default_timezone, else UTC); 400 names the field. */
async function readSchedule(
  deps: SendDeps,
  projectId: ProjectId | null,
  scheduledAt: unknown,
  timezone: unknown,
): Promise<Schedule> {
  if (typeof scheduledAt !== "string")
    throw new AppError(ErrorCode.VALIDATION, "Invalid scheduled_at: must be a string");
  if (
    timezone !== undefined &&
    timezone !== null &&
    typeof timezone !== "string" &&
    typeof timezone !== "number"
  ) {
    throw new AppError(
      ErrorCode.VALIDATION,
      "Invalid timezone: must be an IANA name, an offset string or a number of hours",
    );
  }
  const defaultTimezone = projectId ? await projectDefaultTimezone(deps.db, projectId) : null;
  try {
    return parseSchedule({
      scheduledAt,
      timezone: (timezone as string | number | null | undefined) ?? null,
      defaultTimezone,
      now: new Date(),
    });
  } catch (err) {
    if (err instanceof ScheduleError) throw new AppError(ErrorCode.VALIDATION, err.message);
    throw err;
  }
}

function scheduledResponse(scheduledSendId: string, s: Schedule): SendOutcome {
  return {
    status: 200,
    body: {
      success: true,
      scheduled: true,
      scheduled_send_id: scheduledSendId,
      scheduled_for: s.instant.toISOString(),
      scheduled_for_local: `${s.local} (${s.timezone})`,
      timezone: s.timezone,
      message: `Email scheduled for ${s.local} (${s.timezone})`,
    },
  };
}
