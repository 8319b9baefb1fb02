import {
  AppError,
  type EmailSendRpcReply,
  emailSendRpcReply,
  ErrorCode,
  type ProjectId,
} from "@emailsvc/contracts";
import { cancelUnsentSends } from "@emailsvc/db";
import { BrokerUnavailableError, RpcTimeoutError } from "@emailsvc/messaging";
import { type AcceptedActivity, sendRpcRequest } from "@emailsvc/sending";
import type { SendDeps } from "./send-deps";

export const MSG_PROVIDER_TIMEOUT = "Timed out waiting for the email provider";
export const MSG_BROKER_UNAVAILABLE = "Email not sent: the message broker is unavailable; try again";

/**
 * Why a send failed: `refused` (the provider said no: certainly not sent, given back to the quota), `timeout`
 * (ours or the provider's: 504), `unavailable` (no broker connection: the worker was never asked, 500), or
 * `unknown` (an error without a usable answer: 502, still counted).
 */
type Failure = "refused" | "timeout" | "unavailable" | "unknown";
type Outcome = { ok: true; reply: EmailSendRpcReply } | { ok: false; failure: Failure; error: string };

const failed = (failure: Failure, error: string): Outcome => ({ ok: false, failure, error });
const isFailure = (o: Outcome, failure: Failure): boolean => !o.ok && o.failure === failure;

async function callWorker(
  deps: SendDeps,
  projectId: ProjectId | null,
  activityId: string,
  correlationId?: string,
): Promise<Outcome> {
  const request = sendRpcRequest(projectId, activityId, {
    correlationId,
    deadline: Date.now() + deps.rpcTimeoutMs,
  });
  try {
    const raw = await deps.broker.rpcCall(request.exchange, request.routingKey, request.envelope, {
      timeoutMs: deps.rpcTimeoutMs,
    });
    const parsed = emailSendRpcReply.safeParse(raw);
    if (!parsed.success) return failed("unknown", "the send-worker answered with an invalid reply");
    const reply = parsed.data;
    if (reply.status === "sent" && reply.providerMessageId) return { ok: true, reply };
    const failure =
      reply.errorKind === "timeout"
        ? "timeout"
        : reply.errorKind === "provider" || reply.errorKind === "permanent"
          ? "refused"
          : "unknown";
    return failed(failure, reply.error ?? `email ${reply.status}`);
  } catch (err) {
    // No answer in time (worker down, busy or the provider slow): the caller is told 504.
    if (err instanceof RpcTimeoutError) return failed("timeout", MSG_PROVIDER_TIMEOUT);
    if (err instanceof BrokerUnavailableError) return failed("unavailable", MSG_BROKER_UNAVAILABLE);
    deps.logger.error({ err, activityId }, "send RPC failed");
    return failed("unknown", "the send-worker could not process the email");
  }
}

/**
 * Asks the send-worker to send each activity now (in parallel) over RPC and waits for every answer. All sent:
 * their provider message ids, in activity order. Otherwise the activities still `queued` are cancelled, so a
 * late worker never sends an email the client was told failed (cancelUnsentSends). The status: 500 when the
 * broker was unreachable, else 504 for any timeout, else 502.
 */
export async function sendNow(
  deps: SendDeps,
  projectId: ProjectId | null,
  accepted: { activities: readonly AcceptedActivity[]; period: string },
  correlationId?: string,
): Promise<{ providerMessageIds: string[] }> {
  const { activities, period } = accepted;
  const outcomes = await Promise.all(activities.map((a) => callWorker(deps, projectId, a.id, correlationId)));
  const failures = outcomes.filter((o): o is Extract<Outcome, { ok: false }> => !o.ok);
  if (failures.length === 0)
    return {
      providerMessageIds: outcomes.map((o) => (o as Extract<Outcome, { ok: true }>).reply.providerMessageId!),
    };

  // Refused for sure (not a timeout or a provider error whose outcome is unknown), or never handed over:
  const refusedIds = activities.filter((_a, i) => isFailure(outcomes[i]!, "refused")).map((a) => a.id);
  await cancelUnsentSends(deps.db, projectId, {
    activityIds: activities.map((a) => a.id),
    refusedIds,
    reason: "not sent: the synchronous send failed or timed out",
    period,
  });
  // Spec 7's 500 for the internal endpoint: neither the provider's failure (502) nor its timeout (504).
  if (failures.some((f) => f.failure === "unavailable"))
    throw new AppError(ErrorCode.INTERNAL, MSG_BROKER_UNAVAILABLE);
  if (failures.some((f) => f.failure === "timeout"))
    throw new AppError(ErrorCode.PROVIDER_TIMEOUT, MSG_PROVIDER_TIMEOUT);
  const sentCount = outcomes.length - failures.length;
  const partial = sentCount > 0 ? ` (${sentCount} of ${outcomes.length} recipients were sent)` : "";
  throw new AppError(ErrorCode.PROVIDER_ERROR, `Failed to send email: ${failures[0]!.error}${partial}`);
}
