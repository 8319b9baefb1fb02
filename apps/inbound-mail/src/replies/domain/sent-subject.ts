import { renderDoubleBraces, renderTemplate } from "@emailsvc/content";

/**
 * The subject a send went out with: stored as written, rendered per recipient by send-worker (`{{v}}` variables,
 * or a stored template's syntax for a batch), so the subject rule compares a reply with what its sender saw.
 * A subject that cannot be rendered (over the renderer's limits) is compared as stored.
 */
export function sentSubject(send: { subject: string; data: unknown; fromTemplate: boolean }): string {
  if (send.data === null || typeof send.data !== "object") return send.subject;
  const data = send.data as Record<string, unknown>;
  try {
    return (send.fromTemplate ? renderTemplate : renderDoubleBraces)(send.subject, data, { html: false })
      .text;
  } catch {
    return send.subject;
  }
}
