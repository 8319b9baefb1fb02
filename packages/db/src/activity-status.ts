/**
 * The status of an activity (one email to one recipient), and which status may follow which: data, so every
 * statement that moves an activity asks the same table instead of spelling its own list.
 *
 * Spec 3's documented paths: queued → sent → delivered → opened → clicked; sent → bounced; sent → complained.
 * Ours add: scheduled (waiting for the scheduler), sending (claimed by a send-worker), failed and cancelled.
 * Provider events may arrive out of order (a Delivery before the worker recorded `sent`), so the provider's
 * outcomes accept the earlier states too; none of them moves an activity backwards.
 */
export const ACTIVITY_STATUSES = [
  "scheduled",
  "queued",
  "sending",
  "sent",
  "delivered",
  "opened",
  "clicked",
  "bounced",
  "complained",
  "failed",
  "cancelled",
] as const;
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number];

/** For each status, the statuses an activity may be in to move to it. */
export const ACTIVITY_TRANSITIONS: Readonly<Record<ActivityStatus, readonly ActivityStatus[]>> = {
  scheduled: [], // only ever created so
  // handed over by the scheduler; a claim given back (throttled, or reconciled after a worker died)
  queued: ["scheduled", "sending"],
  sending: ["queued"], // claimed by a send-worker
  // the provider's answer; SES's Send notification also settles a send recorded failed for lack of an answer
  sent: ["sending", "failed"],
  delivered: ["queued", "sending", "sent"],
  bounced: ["queued", "sending", "sent", "delivered"],
  complained: ["queued", "sending", "sent", "delivered", "opened", "clicked"],
  opened: ["sent", "delivered"],
  clicked: ["sent", "delivered", "opened"],
  failed: ["sending"],
  cancelled: ["scheduled", "queued"],
};

/** Statuses of an email that left us: opens and clicks count only for these. */
export const ACTIVITY_WENT_OUT: readonly ActivityStatus[] = [
  "sent",
  "delivered",
  "opened",
  "clicked",
  "bounced",
  "complained",
];

export const isActivityStatus = (s: unknown): s is ActivityStatus =>
  typeof s === "string" && (ACTIVITY_STATUSES as readonly string[]).includes(s);

export const canMoveActivity = (from: ActivityStatus, to: ActivityStatus): boolean =>
  ACTIVITY_TRANSITIONS[to].includes(from);

/** A SQL list literal of statuses, `('a', 'b')`, for `status IN …` (constants only, never client text). */
export const statusList = (statuses: readonly ActivityStatus[]): string =>
  `(${statuses.map((s) => `'${s}'`).join(", ")})`;

/** `('a', 'b')`: the statuses from which an activity may move to `to`. */
export const movableTo = (to: ActivityStatus): string => statusList(ACTIVITY_TRANSITIONS[to]);
