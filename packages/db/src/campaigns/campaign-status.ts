import type { CampaignStatus } from "@emailsvc/contracts";

/**
 * Which campaign status may follow which (spec 3, "Campaign status"), as data: every statement that moves a
 * campaign asks this table (`campaignMovableTo`) instead of spelling its own list.
 */
export const CAMPAIGN_TRANSITIONS: Readonly<Record<CampaignStatus, readonly CampaignStatus[]>> = {
  // created so; an update of a campaign that has not started writes its ledger again
  initializing: ["pending"],
  // its ledger written
  pending: ["initializing"],
  // the first dispatch cycle (or a trigger); a trigger resumes a paused or rate-limited one
  processing: ["pending", "paused", "rate_limited"],
  // by the user, or by the reputation guard
  paused: ["pending", "processing", "rate_limited"],
  // a quota or the warm-up ramp is used up
  rate_limited: ["pending", "processing"],
  // every recipient processed (or none to process)
  completed: ["pending", "processing"],
  // the sender or the template is gone, or nothing could be sent
  failed: ["pending", "processing", "rate_limited"],
  // by the user: pending recipients are never sent
  cancelled: ["initializing", "pending", "processing", "paused", "rate_limited"],
};

/** `('a', 'b')`: the statuses a campaign may be in to move to `to` (constants only, never client text). */
export const campaignMovableTo = (to: CampaignStatus): string =>
  `(${CAMPAIGN_TRANSITIONS[to].map((s) => `'${s}'`).join(", ")})`;
