import type { Envelope } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { PermanentError, RetryableError } from "@emailsvc/messaging";
import type { Logger } from "@emailsvc/observability";
import type { SesEvent } from "../domain/ses-event";
import { applyNotification } from "../use-cases/apply-notification";

/** provider.notification → applyNotification; an event for an activity we cannot find yet is retried. */
export function notificationConsumer(deps: { db: Db; logger: Logger; kickOutbox: () => void }) {
  return async (envelope: Envelope<{ notificationId: string; message?: string }>): Promise<void> => {
    let event: SesEvent;
    try {
      event = JSON.parse(envelope.payload.message ?? "") as SesEvent;
      if (!event?.mail?.messageId) throw new Error("no mail.messageId");
    } catch (err) {
      throw new PermanentError(`unreadable SES event: ${err instanceof Error ? err.message : String(err)}`);
    }
    const result = await applyNotification(deps.db, envelope.payload.notificationId, event);
    if (result === "applied") deps.kickOutbox();
    if (result === "unknown-activity")
      throw new RetryableError(`no activity for provider message ${event.mail.messageId}`);
  };
}
