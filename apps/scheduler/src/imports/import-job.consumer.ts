import { Queues, RoutingKeys } from "@emailsvc/contracts";
import { defineConsumer } from "@emailsvc/messaging";
import type { ImportRunner } from "./import-runner";

/**
 * job.import-requested (written with the job's trigger, spec 4.8): wakes the runner and acks at once. The job's
 * state is in its row, not in the message: a replica without room leaves it to a sweep, and a redelivered or
 * duplicate message finds it locked or finished.
 */
export function importJobConsumer(runner: ImportRunner) {
  return defineConsumer(Queues.schedulerJobs, {
    [RoutingKeys.jobImportRequested]: async (envelope) => {
      await runner.wake(envelope.payload.importJobId);
    },
  });
}
