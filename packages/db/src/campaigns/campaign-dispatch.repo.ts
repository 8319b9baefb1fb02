import type { ProjectId } from "@emailsvc/contracts";
// What campaign-dispatcher reads and writes in its cycles: the ledger claim, the campaign's progress and state,
// the figures its limits and its reputation guard are computed from. Every cycle runs in one transaction holding
// its campaign's row (FOR UPDATE SKIP LOCKED): replicas share campaigns, never hand a recipient over twice.
import type { Pool, PoolClient } from "pg";
import { connOf, type Db, type DbOrClient, withTransaction } from "../create-db";
import { MONTHLY_QUOTA, usagePeriod } from "../quota";
import {
  countAudience,
  loadAudienceSegments,
  materialiseSql,
  type AudienceCounts,
} from "./campaign-audience";
import { campaignMovableTo } from "./campaign-status";
import type { CampaignRow } from "./campaigns.repo";

/** Ledger writes of at least this many rows refresh the table's statistics (materialiseCampaign). */
const ANALYZE_AFTER_ROWS = 20_000;

/**
 * Whether a ledger write of `inserted` rows leaves the planner's statistics of campaign_recipients behind: when it
 * is big (ANALYZE_AFTER_ROWS), or when autovacuum's own rule would call the table due for it (more than
 * autovacuum_analyze_threshold + autovacuum_analyze_scale_factor × its rows as last counted). The second is what
 * the first campaigns of a fresh database meet: a table never analysed (reltuples -1) gets a 10,000-row ledger,
 * and its dispatch cycles ran on guesses (35 pending rows of 10,000; the ledger update hashed the whole table)
 * until autovacuum, up to a minute later, or the dev stack's stand-in got to it.
 */
async function ledgerStatsStale(c: PoolClient, inserted: number): Promise<boolean> {
  if (inserted >= ANALYZE_AFTER_ROWS) return true;
  if (inserted === 0) return false;
  const { rows } = await c.query<{ due: boolean }>(
    `SELECT $1::float8 > current_setting('autovacuum_analyze_threshold')::float8
              + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(reltuples, 0) AS due
       FROM pg_class WHERE oid = 'campaign_recipients'::regclass`,
    [inserted],
  );
  return rows[0]?.due ?? false;
}

/** Statuses whose campaigns may have sends in flight (queued, not yet answered by a send-worker). */
const LIVE = `('pending', 'processing', 'paused', 'rate_limited')`;

/**
 * The next `initializing` campaign (but those in `skip`), locked: its ledger is written and it becomes `pending` in
 * the same transaction (so a crash leaves it `initializing` with no ledger, and any replica starts over). Resolves
 * with what was written, or undefined when none waits.
 */
export async function materialiseNextCampaign(
  db: Db | Pool,
  skip: readonly string[] = [],
): Promise<{ campaign: CampaignRow; counts: AudienceCounts; inserted: number } | undefined> {
  return withTransaction(db, async (c) => {
    const { rows } = await c.query<CampaignRow>(
      `SELECT * FROM campaigns WHERE status = 'initializing' AND NOT (id = ANY($1::uuid[]))
        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [skip],
    );
    const campaign = rows[0];
    if (!campaign) return undefined;
    try {
      return { campaign, ...(await materialiseCampaign(c, campaign)) };
    } catch (err) {
      // names the campaign, so the caller can go on with the others
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), { campaignId: campaign.id });
    }
  });
}

/**
 * Writes the ledger of a locked `initializing` campaign with one `INSERT … SELECT` (materialiseSql) and makes it
 * `pending` with its recipient count and what consent and suppressions left out.
 */
export async function materialiseCampaign(
  c: PoolClient,
  campaign: Pick<CampaignRow, "id" | "project_id" | "audience" | "email_type">,
): Promise<{ counts: AudienceCounts; inserted: number }> {
  const { segments } = await loadAudienceSegments(c, campaign.project_id, campaign.audience);
  const sql = materialiseSql(campaign.audience, segments, campaign.email_type);
  const ins = await c.query(sql.text, sql.values(campaign.project_id, campaign.id));
  const inserted = ins.rowCount ?? 0;
  // A big ledger written at once leaves the planner's statistics behind (autovacuum analyses later): it then
  // guessed ~200 pending rows for a 1,000,000-row campaign and claimed each cycle's 500 by sorting the whole
  // campaign (2 s a cycle instead of 60 ms). So does a small one on a small table (a fresh database's first
  // campaigns): ledgerStatsStale. ANALYZE samples a fixed number of rows (all of a small table: a few ms),
  // counts this transaction's own inserts, and its lock only keeps another ANALYZE or VACUUM of the table
  // waiting until the commit.
  if (await ledgerStatsStale(c, inserted)) await c.query("ANALYZE campaign_recipients");
  const counts = await countAudience(
    c,
    campaign.project_id,
    campaign.audience,
    segments,
    campaign.email_type,
  );
  await c.query(
    `UPDATE campaigns SET status = 'pending', total_recipients = $2, excluded = $3::jsonb, updated_at = now()
      WHERE id = $1 AND status IN ${campaignMovableTo("pending")}`,
    [campaign.id, inserted, JSON.stringify(counts.excluded)],
  );
  return { counts, inserted };
}

/**
 * The next campaign with recipients to dispatch now, locked for this cycle (SKIP LOCKED: another replica takes
 * another campaign): `pending` ones once their start time has come, `processing` ones, `rate_limited` ones whose
 * window has reopened, none whose pacing asks it to wait. The one dispatched longest ago goes first, so
 * campaigns share the rate. `skip`: campaigns this tick has already looked at without sending.
 */
export async function lockNextCampaign(
  c: PoolClient,
  skip: readonly string[],
): Promise<CampaignRow | undefined> {
  const { rows } = await c.query<CampaignRow>(
    `SELECT * FROM campaigns
      WHERE status IN ('pending', 'processing', 'rate_limited')
        AND (status <> 'pending' OR start_at IS NULL OR start_at <= now())
        AND (status <> 'rate_limited' OR rate_limited_until IS NULL OR rate_limited_until <= now())
        AND (next_dispatch_at IS NULL OR next_dispatch_at <= now())
        AND dispatched < total_recipients
        AND NOT (id = ANY($1::uuid[]))
      ORDER BY last_dispatch_at NULLS FIRST, created_at
      LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [skip],
  );
  return rows[0];
}

/** A ledger row claimed for dispatch, with what it takes to send it now: its lead as it is now. */
export interface ClaimedRecipient {
  id: string;
  lead_id: string;
  /** the lead's address now (the ledger's when the lead is gone) */
  email: string;
  lead_exists: boolean;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  attributes: Record<string, unknown> | null;
  subscription: string | null;
  /** the suppression's reason when the address is suppressed now */
  suppressed: string | null;
}

/**
 * Spec 3: "takes 500 pending recipients". Up to `n` pending rows of the campaign, locked with FOR UPDATE SKIP
 * LOCKED (a row another transaction holds is left to it), in ledger order, with their lead and suppression
 * state read now: an unsubscribe or a bounce during the campaign is seen here.
 */
export async function claimRecipients(
  c: PoolClient,
  campaignId: string,
  n: number,
): Promise<ClaimedRecipient[]> {
  const { rows } = await c.query<ClaimedRecipient>(
    `SELECT r.id, r.lead_id, COALESCE(l.email, r.email) AS email, l.id IS NOT NULL AS lead_exists,
            l.first_name, l.last_name, l.phone, l.attributes, l.subscription, s.reason AS suppressed
       FROM (SELECT id, lead_id, email, project_id FROM campaign_recipients
              WHERE campaign_id = $1 AND status = 'pending'
              ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED) r
       LEFT JOIN leads l ON l.id = r.lead_id AND l.project_id = r.project_id
       LEFT JOIN suppressions s ON s.project_id = r.project_id AND s.email = lower(COALESCE(l.email, r.email))
      ORDER BY r.id`,
    [campaignId, n],
  );
  return rows;
}

/** The claimed rows' outcome: handed to the send model (`queued`), or `skipped` with the reason. */
export async function markDispatched(
  c: PoolClient,
  queuedIds: readonly string[],
  skipped: readonly { id: string; reason: string }[],
): Promise<void> {
  const ids = [...queuedIds, ...skipped.map((s) => s.id)];
  if (!ids.length) return;
  await c.query(
    `UPDATE campaign_recipients r SET status = x.status, reason = x.reason, dispatched_at = now(), updated_at = now()
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS x(id, status, reason)
      WHERE r.id = x.id AND r.status = 'pending'`,
    [
      ids,
      [...queuedIds.map(() => "queued"), ...skipped.map(() => "skipped")],
      [...queuedIds.map(() => null), ...skipped.map((s) => s.reason)],
    ],
  );
}

/**
 * A cycle's progress on its campaign: `processing`, `n` more rows out of `pending`, when to look again, and its
 * pacing clock (`last_dispatch_at`: also what orders campaigns so they share the rate).
 */
export async function recordCycle(
  c: PoolClient,
  id: string,
  p: { dispatched: number; currentBatch: number; nextDispatchAt: Date | null; lastDispatchAt: Date },
): Promise<void> {
  await c.query(
    `UPDATE campaigns SET status = 'processing', status_reason = NULL, status_cause = NULL, rate_limited_until = NULL,
            started_at = COALESCE(started_at, now()), dispatched = dispatched + $2, current_batch = $3,
            next_dispatch_at = $4, last_dispatch_at = $5, updated_at = now()
      WHERE id = $1`,
    [id, p.dispatched, p.currentBatch, p.nextDispatchAt, p.lastDispatchAt],
  );
}

/** Sets the campaign's `dispatched` from the ledger (a cycle found no pending row where the counter said some). */
export async function recountDispatched(c: PoolClient, id: string): Promise<void> {
  await c.query(
    `UPDATE campaigns SET dispatched = total_recipients -
            (SELECT count(*) FROM campaign_recipients WHERE campaign_id = $1 AND status = 'pending')::int,
            updated_at = now()
      WHERE id = $1`,
    [id],
  );
}

/** The campaign stops by itself: rate_limited (until its window reopens), paused by the guard, or failed. */
export async function stopCampaign(
  q: DbOrClient,
  id: string,
  to: "rate_limited" | "paused" | "failed",
  why: { reason: string; cause: string | null; until?: Date | null },
): Promise<void> {
  await connOf(q).query(
    `UPDATE campaigns SET status = $2, status_reason = $3, status_cause = $4, rate_limited_until = $5,
            finished_at = CASE WHEN $2 = 'failed' THEN now() ELSE finished_at END, updated_at = now()
      WHERE id = $1 AND status IN ${campaignMovableTo(to)}`,
    [id, to, why.reason, why.cause, why.until ?? null],
  );
  if (to === "failed")
    await connOf(q).query(
      `UPDATE campaign_recipients SET status = 'failed', reason = $2, updated_at = now()
        WHERE campaign_id = $1 AND status = 'pending'`,
      [id, `campaign failed: ${why.reason}`],
    );
}

/** Waits before the campaign is looked at again (pacing, a batch interval). */
export async function deferCampaign(c: PoolClient, id: string, until: Date): Promise<void> {
  await c.query(`UPDATE campaigns SET next_dispatch_at = $2, updated_at = now() WHERE id = $1`, [id, until]);
}

/**
 * Campaign sends handed over and not answered yet (queued or being sent), over every live campaign: what the
 * broker and the send-workers hold. The dispatcher keeps it to what the rate drains in a few cycles.
 */
export async function campaignSendsInFlight(q: DbOrClient): Promise<number> {
  const { rows } = await connOf(q).query<{ n: number }>(
    `SELECT count(*)::int AS n FROM campaign_recipients
      WHERE status = 'queued' AND campaign_id IN (SELECT id FROM campaigns WHERE status IN ${LIVE})`,
  );
  return rows[0]!.n;
}

/** What the project may still send this month (spec 8: 500,000 live emails). */
export async function monthlyQuotaLeft(
  q: DbOrClient,
  projectId: ProjectId,
  now = new Date(),
): Promise<number> {
  const { rows } = await connOf(q).query<{ live_sent: number }>(
    `SELECT live_sent FROM project_usage WHERE project_id = $1 AND period = $2`,
    [projectId, usagePeriod(now)],
  );
  return Math.max(0, MONTHLY_QUOTA - (rows[0]?.live_sent ?? 0));
}

/** The warm-up state of a sending domain on `day`: its ramp (null: the default), its first day, what it used. */
export async function domainWarmup(
  q: DbOrClient,
  projectId: ProjectId,
  domain: string,
  day: number,
): Promise<{ ramp: number[] | null; firstDay: number | null; used: number }> {
  const { rows } = await connOf(q).query<{ ramp: number[] | null; first_day: number | null; used: number }>(
    `SELECT (SELECT ramp FROM domain_warmups WHERE project_id = $1 AND domain = $2) AS ramp,
            (SELECT min(day) FROM domain_send_days WHERE project_id = $1 AND domain = $2) AS first_day,
            COALESCE((SELECT dispatched FROM domain_send_days WHERE project_id = $1 AND domain = $2 AND day = $3), 0) AS used`,
    [projectId, domain, day],
  );
  const r = rows[0]!;
  return { ramp: r.ramp, firstDay: r.first_day, used: r.used };
}

/** Counts `n` campaign sends against the domain's day (the warm-up ramp's measure). */
export async function recordDomainSends(
  c: PoolClient,
  projectId: ProjectId,
  domain: string,
  day: number,
  n: number,
): Promise<void> {
  if (n <= 0) return;
  await c.query(
    `INSERT INTO domain_send_days AS d (project_id, domain, day, dispatched) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, domain, day) DO UPDATE SET dispatched = d.dispatched + EXCLUDED.dispatched`,
    [projectId, domain, day, n],
  );
}

/** Sets (or clears, with null) a domain's warm-up ramp. */
export async function setDomainWarmup(
  q: DbOrClient,
  projectId: ProjectId,
  domain: string,
  ramp: number[] | null,
): Promise<void> {
  if (ramp === null) {
    await connOf(q).query(`DELETE FROM domain_warmups WHERE project_id = $1 AND domain = $2`, [
      projectId,
      domain,
    ]);
    return;
  }
  await connOf(q).query(
    `INSERT INTO domain_warmups (project_id, domain, ramp) VALUES ($1, $2, $3::int[])
     ON CONFLICT (project_id, domain) DO UPDATE SET ramp = EXCLUDED.ramp, updated_at = now()`,
    [projectId, domain, ramp],
  );
}

/**
 * The reputation guard's figures, each a short range of the ledger's (campaign, status) index whatever the
 * campaign's size: sends that went out (the rows taken out of pending, less those still queued, failed or
 * skipped), hard bounces and complaints.
 */
export async function guardFigures(
  q: DbOrClient,
  campaign: Pick<CampaignRow, "id" | "dispatched">,
): Promise<{ sent: number; hardBounced: number; complained: number }> {
  const { rows } = await connOf(q).query<{ not_out: number; hard: number; complained: number }>(
    `SELECT (SELECT count(*) FROM campaign_recipients
              WHERE campaign_id = $1 AND status IN ('queued', 'failed', 'skipped', 'cancelled'))::int AS not_out,
            (SELECT count(*) FROM campaign_recipients r JOIN activities a ON a.id = r.id
              WHERE r.campaign_id = $1 AND r.status = 'bounced' AND a.bounce_type = 'Permanent')::int AS hard,
            (SELECT count(*) FROM campaign_recipients WHERE campaign_id = $1 AND status = 'complained')::int AS complained`,
    [campaign.id],
  );
  const r = rows[0]!;
  return {
    sent: Math.max(0, campaign.dispatched - r.not_out),
    hardBounced: r.hard,
    complained: r.complained,
  };
}

/**
 * Ends campaigns with nothing left to do: every recipient out of `pending` and none still in flight. `completed`
 * when any email went out or there was nobody to send to (everyone skipped, an empty audience), `failed` when
 * every send failed. Any replica may run it (SKIP LOCKED).
 */
export async function settleFinishedCampaigns(
  db: Db | Pool,
): Promise<{ id: string; status: "completed" | "failed" }[]> {
  return withTransaction(db, async (c) => {
    const { rows } = await c.query<{ id: string; total: number; failed: number; out: number }>(
      `SELECT c.id, c.total_recipients AS total,
              (SELECT count(*) FROM campaign_recipients r WHERE r.campaign_id = c.id AND r.status = 'failed')::int AS failed,
              (SELECT count(*) FROM campaign_recipients r WHERE r.campaign_id = c.id
                  AND r.status IN ('failed', 'skipped', 'cancelled'))::int AS out
         FROM campaigns c
        WHERE c.status IN ('pending', 'processing') AND c.dispatched >= c.total_recipients
          AND (c.status <> 'pending' OR c.start_at IS NULL OR c.start_at <= now())
          AND NOT EXISTS (SELECT 1 FROM campaign_recipients r WHERE r.campaign_id = c.id AND r.status = 'queued')
        FOR UPDATE OF c SKIP LOCKED`,
    );
    const settled: { id: string; status: "completed" | "failed" }[] = [];
    for (const r of rows) {
      const status = r.total === r.out && r.failed > 0 ? "failed" : "completed";
      await c.query(
        `UPDATE campaigns SET status = $2, status_reason = $3, finished_at = now(), started_at = COALESCE(started_at, now()),
                updated_at = now()
          WHERE id = $1`,
        [r.id, status, status === "failed" ? `no email could be sent: all ${r.failed} sends failed` : null],
      );
      settled.push({ id: r.id, status });
    }
    return settled;
  });
}
