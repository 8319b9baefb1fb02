import { sesMessageIdDomain } from "@emailsvc/provider";
import type { Deps } from "./deps";
import { createResolveRepo } from "@emailsvc/db";
import type { ProcessDeps } from "./replies/process-notification";

const DAY = 24 * 60 * 60_000;

const made = new WeakMap<Deps, ProcessDeps>();

/**
 * The processing dependencies from the service's, made once per service: the receiver (which processes a new
 * notification before it answers) and the consumer (which finishes what the receiver could not) share them, and
 * their metrics can be registered only once.
 */
export function processDepsOf(deps: Deps): ProcessDeps {
  let p = made.get(deps);
  if (!p) made.set(deps, (p = makeProcessDeps(deps)));
  return p;
}

function makeProcessDeps(deps: Deps): ProcessDeps {
  const env = deps.env;
  return {
    db: deps.db,
    s3: deps.s3,
    sesV1: deps.sesV1,
    logger: deps.logger,
    resolve: createResolveRepo(deps.db, sesMessageIdDomain(env.AWS_REGION)),
    kickOutbox: () => deps.outbox.kick(),
    counters: {
      processed: deps.metrics.counter(
        "inbound_messages_total",
        "Inbound emails stored, by matched rule and kind",
        ["matched_by", "kind"],
      ),
      deferred: deps.metrics.counter(
        "inbound_sync_deferred_total",
        "Inbound notifications answered `queued` (left to the consumer), by reason: budget, busy, error, no_object, disabled",
        ["reason"],
      ),
    },
    config: {
      inboundDomain: env.INBOUND_DOMAIN,
      bucket: env.INBOUND_BUCKET,
      attachmentsBucket: env.INBOUND_ATTACHMENTS_BUCKET ?? env.INBOUND_BUCKET,
      maxBytes: env.INBOUND_MAX_BYTES,
      bounceSender: env.INBOUND_BOUNCE_SENDER ?? `MAILER-DAEMON@${env.INBOUND_DOMAIN}`,
      publicBaseUrl: env.PUBLIC_BASE_URL,
      linkSecret: env.TRACKING_SECRET,
      linkTtlMs: env.INBOUND_LINK_TTL_DAYS * DAY,
      subjectWindowMs: env.INBOUND_SUBJECT_WINDOW_DAYS * DAY,
    },
  };
}
