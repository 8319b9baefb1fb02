import type { ProjectId } from "@emailsvc/contracts";
import { type Db, setReceiverFailing } from "@emailsvc/db";
import type { Logger, Metrics } from "@emailsvc/observability";

/**
 * Writes a destination's failing state on its project (`webhook_failing_since`, or `webhook_dev_failing_since`
 * for the test URL), where the admin API shows it. Only the change of the column is logged and counted: with
 * several replicas each finds out on its own, and only the first one to write it says so.
 */
export function recordReceiverState(db: Db, logger: Logger, metrics: Metrics) {
  const flips = metrics.counter(
    "webhook_endpoint_state_changes_total",
    "Webhook receivers that turned failing or recovered (state: failing | recovered)",
    ["state"],
  );
  return (
    projectId: ProjectId,
    isTest: boolean,
    failing: boolean,
    kind: "outbound" | "inbound" = "outbound",
  ): void => {
    const column =
      kind === "inbound"
        ? isTest
          ? "inbound_webhook_dev_failing_since"
          : "inbound_webhook_failing_since"
        : isTest
          ? "webhook_dev_failing_since"
          : "webhook_failing_since";
    setReceiverFailing(db, projectId, column, failing).then(
      (changed) => {
        if (!changed) return;
        flips.inc({ state: failing ? "failing" : "recovered" });
        const fields = { projectId, mode: isTest ? "test" : "live", ...(kind === "inbound" ? { kind } : {}) };
        // deliveries deferred, probed one at a time / normal delivery resumed
        if (failing) logger.warn(fields, "webhook.endpoint_failing");
        else logger.info(fields, "webhook.endpoint_recovered");
      },
      (err: unknown) => logger.warn({ projectId, err }, "could not record the webhook receiver's state"),
    );
  };
}
