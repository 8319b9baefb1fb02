import {
  consumerCatalogue,
  type Envelope,
  type EmailSendRequestedPayload,
  Queues,
  RoutingKeys,
  sendRequestedIds,
} from "@emailsvc/contracts";
import { defineConsumer, type MessageContext, RetryableError } from "@emailsvc/messaging";
import { requeueActivities } from "@emailsvc/db";
import { sendRequests } from "@emailsvc/sending";
import {
  failReleased,
  sendActivity,
  type SendActivityDeps,
  type SendLane,
  type SendOutcome,
} from "../use-cases/send-activity";

type Run = <T>(fn: () => Promise<T>) => Promise<T>;

/**
 * A throttled call is usually one send squeezed by network jitter: try it again a few times right away (it
 * takes a fresh rate-limiter slot each time) before handing the activity to the queue's delayed retry, which
 * would hold up the rest of a batch message for seconds.
 */
async function sendRetryingThrottle(
  deps: SendActivityDeps,
  id: string,
  lane: SendLane,
  run: Run,
): Promise<SendOutcome> {
  for (let attempt = 1; ; attempt++) {
    // A bulk send takes one of its lane's concurrency places for the send itself (claim, sliding-second check,
    // provider call): it reads, renders and waits for its rate slot before, and records the answer after, holding
    // none. Held through the wait, the 20 places each sat on a slot booked up to SEND_BULK_MAX_AHEAD_MS ahead
    // (~100 sends/s whatever the rate); held through the reads and the mark-sent as well, a place lasted 108-216 ms
    // on a busy machine and 20 of them carried 93-185 sends/s (bench/campaigns at 200/s).
    const o =
      lane === "bulk"
        ? await sendActivity(deps, id, { lane, place: run })
        : await run(() => sendActivity(deps, id, { lane }));
    if (o.kind !== "retry" || o.reason !== "throttle" || attempt >= 3) return o;
    await new Promise((r) => setTimeout(r, 100 * attempt));
  }
}

/**
 * A send request (either lane): sends every listed activity (bounded concurrency). Activities to retry are retried
 * together after the queue's delay; a message redelivered for them skips the ones already sent (the claim).
 * On the last attempt, throttled activities are re-requested on the same lane (throttling is never a failure) and
 * transient failures are recorded as failed.
 */
function sendRequested(deps: SendActivityDeps, run: Run, lane: SendLane, maxAttempts: number) {
  return async (envelope: Envelope<EmailSendRequestedPayload>, ctx: MessageContext): Promise<void> => {
    const ids = sendRequestedIds(envelope.payload);
    // Every activity gets an outcome, even one whose send threw (a database error outside the provider call):
    // it counts as transient. With Promise.all one throw discarded the others' outcomes, and on the last attempt
    // the message was parked with its throttled activities never re-requested: they stayed `queued` for good.
    const outcomes = await Promise.all(
      ids.map((id) =>
        sendRetryingThrottle(deps, id, lane, run).then(
          (o) => ({ id, o }),
          (err: unknown): { id: string; o: SendOutcome } => {
            const message = err instanceof Error ? err.message : String(err);
            deps.logger.warn({ activityId: id, err: message }, "send threw; will be retried");
            return { id, o: { kind: "retry", reason: "transient", timeout: false, message } };
          },
        ),
      ),
    );
    const retry = outcomes.filter((x) => x.o.kind === "retry");
    if (!retry.length) return;
    if (ctx.attempt < maxAttempts) {
      throw new RetryableError(`${retry.length} of ${ids.length} activities to retry`);
    }
    const throttled = retry.filter((x) => x.o.kind === "retry" && x.o.reason === "throttle").map((x) => x.id);
    if (throttled.length) {
      await requeueActivities(deps.db, sendRequests(lane, envelope.projectId, throttled));
      deps.kickOutbox();
    }
    for (const x of retry) {
      if (x.o.kind === "retry" && x.o.reason === "transient")
        await failReleased(deps, x.id, `gave up after ${ctx.attempt} attempts: ${x.o.message}`);
    }
  };
}

/** email.send-requested: the transactional lane (API, internal, scheduled and batch sends). */
export function sendConsumer(deps: SendActivityDeps, run: Run) {
  return defineConsumer(Queues.sendWorkerSend, {
    [RoutingKeys.emailSendRequested]: sendRequested(
      deps,
      run,
      "transactional",
      consumerCatalogue[Queues.sendWorkerSend].retry.maxAttempts,
    ),
  });
}

/**
 * email.bulk-send-requested: the bulk lane (campaigns), on its own queue and its own concurrency, its sends taking
 * only the rate's spare slots (`reserveBulk`).
 */
export function bulkSendConsumer(deps: SendActivityDeps, run: Run) {
  return defineConsumer(Queues.sendWorkerBulk, {
    [RoutingKeys.emailBulkSendRequested]: sendRequested(
      deps,
      run,
      "bulk",
      consumerCatalogue[Queues.sendWorkerBulk].retry.maxAttempts,
    ),
  });
}
