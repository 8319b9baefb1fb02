import { AppError, ErrorCode, isUuid } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { THREAD_COLUMNS, type ThreadRow, threadView } from "./list-threads";

const NOT_FOUND = "Thread not found";

/**
 * GET /v1/threads/:id: the thread (of the key's project only) with its messages oldest first: the original send
 * (`direction: outbound`) and every reply (`direction: inbound`) with its attachments.
 */
export async function getThread(db: Db, projectId: string, id: string) {
  if (!isUuid(id)) throw new AppError(ErrorCode.NOT_FOUND, NOT_FOUND);
  const t = (
    await db.pool.query<ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM inbound_threads WHERE id = $1 AND project_id = $2`,
      [id, projectId],
    )
  ).rows[0];
  if (!t) throw new AppError(ErrorCode.NOT_FOUND, NOT_FOUND);
  const [outbound, inbound] = await Promise.all([
    t.activity_id
      ? db.pool.query<{
          id: string;
          message_id: string | null;
          from_email: string;
          recipient: string;
          subject: string;
          status: string;
          sent_at: Date | null;
          created_at: Date;
        }>(
          `SELECT a.id, a.message_id, m.from_email, a.recipient, m.subject, a.status, a.sent_at, a.created_at
             FROM activities a JOIN email_messages m ON m.id = a.email_message_id
            WHERE a.id = $1 AND a.project_id = $2`,
          [t.activity_id, projectId],
        )
      : Promise.resolve({ rows: [] }),
    db.pool.query<{
      id: string;
      message_id: string | null;
      in_reply_to: string | null;
      from_email: string;
      from_name: string | null;
      to: { email: string; name: string | null }[];
      cc: { email: string; name: string | null }[];
      subject: string;
      text_body: string;
      html_body: string;
      reply_text: string;
      kind: "reply" | "auto_reply" | "bounce_report" | "forward";
      matched_by: string | null;
      suspicious: boolean;
      verdicts: Record<string, string | null>;
      sent_at: Date | null;
      received_at: Date;
      attachments: {
        id: string;
        filename: string;
        content_type: string;
        size: number;
        storage_key: string;
      }[];
    }>(
      `SELECT m.id, m.message_id, m.in_reply_to, m.from_email, m.from_name, m."to", m.cc, m.subject, m.text_body,
              m.html_body, m.reply_text, m.kind, m.matched_by, m.suspicious, m.verdicts, m.sent_at, m.received_at,
              COALESCE((SELECT json_agg(json_build_object('id', a.id, 'filename', a.filename, 'content_type',
                  a.content_type, 'size', a.size, 'storage_key', a.storage_key) ORDER BY a.position)
                  FROM inbound_attachments a WHERE a.inbound_message_id = m.id), '[]') AS attachments
         FROM inbound_messages m WHERE m.thread_id = $1 AND m.project_id = $2 ORDER BY m.received_at, m.id`,
      [id, projectId],
    ),
  ]);
  const messages: { at: number; view: unknown }[] = [];
  for (const o of outbound.rows) {
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
  for (const m of inbound.rows) {
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
