import type { EmailSendRpcReply, Envelope, MessagePayload, RoutingKeys } from "@emailsvc/contracts";
import { failReleased, sendActivity, type SendActivityDeps } from "../use-cases/send-activity";

/**
 * email.send-rpc (the synchronous internal POST /send-email): one activity, answered at once. A throttled call
 * is retried briefly inside the caller's deadline; any other failure is final and recorded as failed, because
 * the client is told 502/504 and must not see the email go out later.
 */
export function rpcConsumer(deps: SendActivityDeps) {
  return async (
    envelope: Envelope<MessagePayload<typeof RoutingKeys.emailSendRpc>>,
  ): Promise<EmailSendRpcReply> => {
    const { activityId, deadline } = envelope.payload;
    for (let attempt = 1; ; attempt++) {
      const o = await sendActivity(deps, activityId, {
        ...(deadline === undefined ? {} : { deadline }),
        // an unanswered call is failed below (the caller is told 504), not left to the reconciler
        releaseUnknown: true,
      });
      if (o.kind === "sent") return { activityId, status: "sent", providerMessageId: o.providerMessageId };
      if (o.kind === "skipped")
        return {
          activityId,
          status: "skipped",
          error: "Activity is not waiting to be sent",
          errorKind: "permanent",
        };
      if (o.kind === "failed")
        return { activityId, status: "failed", error: o.reason, errorKind: "provider" };
      if (o.kind === "unknown") throw new Error("unreachable: releaseUnknown answers retry");
      if (o.reason === "throttle" && attempt < 3) {
        await new Promise((r) => setTimeout(r, 300 * attempt));
        continue;
      }
      if (o.unsent) {
        // Not called at all: the activity stays `queued`, and public-api, told it timed out, cancels it and
        // gives it back to the quota (a certainly-unsent email is not charged).
        return { activityId, status: "queued", error: o.message, errorKind: "timeout" };
      }
      await failReleased(deps, activityId, o.message);
      return {
        activityId,
        status: "failed",
        error: o.message,
        // no usable answer from the provider: whether it sent the email is unknown
        errorKind: o.timeout ? "timeout" : "transient",
      };
    }
  };
}
