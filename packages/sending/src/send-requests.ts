import {
  type Envelope,
  Exchanges,
  type MessagePayload,
  makeEnvelope,
  RoutingKeys,
  SEND_REQUESTED_MAX_IDS,
  sendRequestedPayloads,
  type ProjectId,
} from "@emailsvc/contracts";
import type { NewOutboxRow } from "@emailsvc/db";

/**
 * The lane a send travels in (ARCHITECTURE.md, "Two lanes, one provider rate"): `transactional` (v1, internal,
 * scheduled, automations) takes the rate first; `bulk` (campaigns, and a project's sends past its fair share)
 * takes only the slots transactional mail leaves free.
 */
export type SendLane = "transactional" | "bulk";

/** Who asked, carried on the envelopes: a request's correlation id, the campaign or scheduled send that caused it. */
export interface SendRequestOptions {
  /** ids per message (default SEND_REQUESTED_MAX_IDS): a campaign spreads its cycle over the workers */
  idsPerMessage?: number;
  correlationId?: string | undefined;
  causationId?: string | undefined;
}

const ROUTING = {
  transactional: RoutingKeys.emailSendRequested,
  bulk: RoutingKeys.emailBulkSendRequested,
} as const;

/** The exchange and routing key of a lane's send requests. */
export function laneRoute(lane: SendLane) {
  return { exchange: Exchanges.emailCommands, routingKey: ROUTING[lane] };
}

/**
 * THE builder of send commands (`email.send-requested`, `email.bulk-send-requested`): every send of every source,
 * and every re-request (a throttled send past its last attempt, a claim reconciled), is handed to the send-worker
 * as these outbox rows. `activityIds` in order, at most `idsPerMessage` a message.
 */
export function sendRequests(
  lane: SendLane,
  projectId: ProjectId | null,
  activityIds: readonly string[],
  opts: SendRequestOptions = {},
): NewOutboxRow[] {
  const route = laneRoute(lane);
  const meta = {
    projectId,
    ...(opts.correlationId ? { correlationId: opts.correlationId } : {}),
    ...(opts.causationId ? { causationId: opts.causationId } : {}),
  };
  return sendRequestedPayloads(activityIds, opts.idsPerMessage ?? SEND_REQUESTED_MAX_IDS).map((payload) => ({
    ...route,
    payload: makeEnvelope(route.routingKey, payload, meta),
  }));
}

/**
 * The synchronous internal send's request (spec 4.4): one RPC to the send-worker, which answers with the
 * provider's message id; the caller's broker makes the call.
 */
export function sendRpcRequest(
  projectId: ProjectId | null,
  activityId: string,
  opts: { correlationId?: string | undefined; deadline: number },
): {
  exchange: string;
  routingKey: string;
  envelope: Envelope<MessagePayload<typeof RoutingKeys.emailSendRpc>>;
} {
  return {
    exchange: Exchanges.emailCommands,
    routingKey: RoutingKeys.emailSendRpc,
    envelope: makeEnvelope(
      RoutingKeys.emailSendRpc,
      { activityId, deadline: opts.deadline },
      { projectId, ...(opts.correlationId ? { correlationId: opts.correlationId } : {}) },
    ),
  };
}
