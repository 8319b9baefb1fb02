import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";
import { timeOrderedUuid } from "../time-ordered-uuid";
import { ORDER_CLOSES_CHECKOUT } from "./shop-processing.repo";

/** A due step with what deciding and sending it needs, read in the claim's statement. */
export interface DueStep {
  id: string;
  project_id: ProjectId;
  shop_id: string;
  checkout_id: string;
  step: number;
  lead_id: string | null;
  email: string;
  recovery_url: string | null;
  line_items: unknown[];
  total_minor: string;
  subtotal_minor: string | null;
  currency: string;
  started_at: Date;
  first_name: string | null;
  last_name: string | null;
  /** an order closed the checkout since it started */
  ordered: boolean;
  /** the lead unsubscribed from marketing */
  unsubscribed: boolean;
  /** another checkout's abandoned-cart email went to this lead in the last 24 h */
  recently_mailed: boolean;
  abandoned_steps_minutes: number[];
  abandoned_template_id: string | null;
  abandoned_from_email: string | null;
  abandoned_from_name: string | null;
  /**
   * the shop has no secret (its checkouts arrive unsigned) and the operator has not allowed abandoned-cart emails
   * for unsigned checkouts: the step is skipped
   */
  unsigned_not_allowed: boolean;
}

/**
 * Claims up to `limit` due steps with FOR UPDATE SKIP LOCKED (any number of shop-ingest replicas take disjoint
 * steps), marking them `sending` until `claimSeconds` from now: a replica that dies holding a claim leaves it to
 * be claimed again when it expires. The step's send has a fixed id (the step's own), so a claim taken again after
 * its send was accepted finds that send instead of making another. The due steps are picked in an `ARRAY(…)`
 * sub-select, run once whatever the plan (see the outbox lease: a joined locking sub-select can be run again per
 * row under a plan made while the table was empty).
 */
export async function claimDueSteps(db: Db, limit: number, claimSeconds: number): Promise<DueStep[]> {
  const { rows } = await db.pool.query<DueStep>(
    `WITH claimed AS (
       UPDATE abandoned_cart_steps s SET status = 'sending', claim_expires_at = now() + $2::int * interval '1 second',
              updated_at = now()
        WHERE s.id = ANY(ARRAY(
                SELECT id FROM abandoned_cart_steps
                 WHERE due_at <= now() AND (status = 'pending' OR (status = 'sending' AND claim_expires_at < now()))
                 ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED))
       RETURNING s.id, s.project_id, s.shop_id, s.checkout_id, s.step, s.lead_id
     )
     SELECT c.id, c.project_id, c.shop_id, c.checkout_id, c.step, COALESCE(c.lead_id, ck.lead_id) AS lead_id,
            ck.email, ck.recovery_url, ck.line_items, ck.total_minor::text, ck.subtotal_minor::text, ck.currency,
            ck.started_at, l.first_name, l.last_name,
            ${ORDER_CLOSES_CHECKOUT} AS ordered,
            COALESCE(l.subscription = 'unsubscribed', false) AS unsubscribed,
            EXISTS (SELECT 1 FROM abandoned_cart_steps o
                     WHERE o.project_id = c.project_id AND o.lead_id = COALESCE(c.lead_id, ck.lead_id)
                       AND o.checkout_id <> c.checkout_id AND o.status = 'sent'
                       AND o.updated_at > now() - interval '24 hours') AS recently_mailed,
            sc.abandoned_steps_minutes, sc.abandoned_template_id, sc.abandoned_from_email, sc.abandoned_from_name,
            (sc.secret_enc IS NULL AND NOT sc.allow_unsigned_abandoned_cart) AS unsigned_not_allowed
       FROM claimed c
       JOIN shop_checkouts ck ON ck.id = c.checkout_id
       JOIN shop_connections sc ON sc.id = c.shop_id
       LEFT JOIN leads l ON l.project_id = c.project_id AND l.id = COALESCE(c.lead_id, ck.lead_id)`,
    [limit, claimSeconds],
  );
  return rows;
}

/**
 * Ends a claimed step: `sent` (with its send's id) schedules the next step, if the shop has one, due that many
 * minutes (of `unitSeconds` each: 60, or fewer in tests) after the checkout started; `stopped` and `skipped` keep their reason. Only the claim's holder ends it
 * (status still `sending`).
 */
export async function finishStep(
  db: Db,
  step: Pick<
    DueStep,
    "id" | "project_id" | "shop_id" | "checkout_id" | "step" | "lead_id" | "abandoned_steps_minutes"
  >,
  outcome: { status: "sent"; emailMessageId: string } | { status: "stopped" | "skipped"; reason: string },
  unitSeconds = 60,
): Promise<void> {
  const nextMinutes = outcome.status === "sent" ? step.abandoned_steps_minutes[step.step] : undefined;
  const next = nextMinutes === undefined ? undefined : nextMinutes * unitSeconds;
  await db.pool.query(
    `WITH done AS (
       UPDATE abandoned_cart_steps SET status = $3, reason = $4, email_message_id = $5, claim_expires_at = NULL,
              updated_at = now()
        WHERE project_id = $1 AND id = $2 AND status = 'sending' RETURNING checkout_id
     )
     INSERT INTO abandoned_cart_steps (id, project_id, shop_id, checkout_id, step, due_at, lead_id)
     SELECT $6, $1, $7, ck.id, $8, ck.started_at + $9::int * interval '1 second', $10
       FROM done JOIN shop_checkouts ck ON ck.id = done.checkout_id
      WHERE $9::int IS NOT NULL
     ON CONFLICT (checkout_id, step) DO NOTHING`,
    [
      step.project_id,
      step.id,
      outcome.status,
      outcome.status === "sent" ? null : outcome.reason,
      outcome.status === "sent" ? outcome.emailMessageId : null,
      timeOrderedUuid(),
      step.shop_id,
      step.step + 1,
      next ?? null,
      step.lead_id,
    ],
  );
}

/** Gives a claimed step back (a failure worth retrying), due again after `retryAfterSeconds`. */
export async function releaseStep(
  db: Db,
  projectId: ProjectId,
  stepId: string,
  retryAfterSeconds: number,
): Promise<void> {
  await db.pool.query(
    `UPDATE abandoned_cart_steps SET status = 'pending', claim_expires_at = NULL,
            due_at = greatest(due_at, now() + $3::int * interval '1 second'), updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status = 'sending'`,
    [projectId, stepId, retryAfterSeconds],
  );
}
