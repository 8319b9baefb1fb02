import { AppError, ErrorCode, isUuid, type ProjectId } from "@emailsvc/contracts";
import { type Db, findThread, findThreadSend, listThreadReplies } from "@emailsvc/db";
import { threadView } from "./list-threads";

const NOT_FOUND = "Thread not found";

/**
 * GET /v1/threads/:id: the thread (of the key's project only) with its messages oldest first: the original send
 * (`direction: outbound`) and every reply (`direction: inbound`) with its attachments.
 */
export async function getThread(db: Db, projectId: ProjectId, id: string, opts: { testOnly?: boolean } = {}) {
  if (!isUuid(id)) throw new AppError(ErrorCode.NOT_FOUND, NOT_FOUND);
  const t = await findThread(db, projectId, id);
  if (!t || (opts.testOnly && !t.is_test)) throw new AppError(ErrorCode.NOT_FOUND, NOT_FOUND);
  const [send, replies] = await Promise.all([
    t.activity_id ? findThreadSend(db, projectId, t.activity_id) : Promise.resolve(null),
    listThreadReplies(db, projectId, id),
  ]);
  const messages: { at: number; view: unknown }[] = [];
  for (const o of send ? [send] : []) {
    messages.push({
      at: (o.sent_at ?? o.created_at).getTime(),
      view: {
        direction: "outbound",
        activity_id: o.id,
        message_id: o.message_id ? `<${o.message_id}>` : null,
        from: o.from_email,
        to: o.recipient,
        subject: o.subject,
        status: o.status,
        sent_at: o.sent_at?.toISOString() ?? null,
      },
    });
  }
  for (const m of replies) {
    messages.push({
      at: m.received_at.getTime(),
      view: {
        direction: "inbound",
        id: m.id,
        message_id: m.message_id,
        in_reply_to: m.in_reply_to,
        from: { email: m.from_email, name: m.from_name },
        to: m.to,
        cc: m.cc,
        subject: m.subject,
        text_body: m.text_body,
        html_body: m.html_body,
        reply_text: m.reply_text,
        kind: m.kind,
        matched_by: m.matched_by,
        suspicious: m.suspicious,
        verdicts: m.verdicts,
        attachments: m.attachments,
        date: m.sent_at?.toISOString() ?? null,
        received_at: m.received_at.toISOString(),
      },
    });
  }
  messages.sort((a, b) => a.at - b.at);
  return { success: true, thread: threadView(t), messages: messages.map((m) => m.view) };
}
