/**
 * The reputation guard (issue 24): a campaign whose hard-bounce rate passes 5% or whose complaint rate passes 0.1%,
 * over at least 500 sends, is paused with the reason (Google's bulk-sender thresholds). Counted since the last
 * time a user resumed it past the guard (its baseline), so a resume is not undone by the sends before it.
 */
export interface GuardConfig {
  minSends: number;
  maxHardBounceRate: number;
  maxComplaintRate: number;
}

/** Sends that went out, hard bounces and complaints (now, or at the last resume past the guard). */
export interface GuardFigures {
  sent: number;
  hardBounced: number;
  complained: number;
}

export type GuardVerdict = { cause: "reputation_bounces" | "reputation_complaints"; reason: string } | null;

const pct = (r: number): string => `${(r * 100).toFixed(r < 0.01 ? 2 : 1)}%`;

export function guardVerdict(
  figures: GuardFigures,
  baseline: GuardFigures | null,
  cfg: GuardConfig,
): GuardVerdict {
  const sent = figures.sent - (baseline?.sent ?? 0);
  if (sent < cfg.minSends || sent <= 0) return null;
  const bounces = figures.hardBounced - (baseline?.hardBounced ?? 0);
  const complaints = figures.complained - (baseline?.complained ?? 0);
  if (bounces / sent > cfg.maxHardBounceRate)
    return {
      cause: "reputation_bounces",
      reason: `hard-bounce rate ${pct(bounces / sent)} (${bounces} of ${sent} sends) passed ${pct(cfg.maxHardBounceRate)}`,
    };
  if (complaints / sent > cfg.maxComplaintRate)
    return {
      cause: "reputation_complaints",
      reason: `complaint rate ${pct(complaints / sent)} (${complaints} of ${sent} sends) passed ${pct(cfg.maxComplaintRate)}`,
    };
  return null;
}
