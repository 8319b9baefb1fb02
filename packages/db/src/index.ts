// Tenant scoping (issue 22): every repository that reads or writes one project's data takes a `ProjectId`
// (@emailsvc/contracts) first after the db handle; eslint forbids asserting one. What takes none, on purpose:
// - sweeps across all projects by the platform's own loops: claimDueScheduledSends, settleHandedOffSends, nextDueAt
//   (scheduler); reconcileClaims (send-worker); materialiseNextCampaign, lockNextCampaign, campaignSendsInFlight,
//   settleFinishedCampaigns (campaign-dispatcher); claimDueSteps (abandoned carts); findTriggeredImportJobs;
//   createOutboxStore (the outbox relays); listUnmatchedInbound, listInboundNotifications (the operator's admin list);
// - statements keyed by a row id, a provider's message id or a signed link, where the row names its project and
//   the result carries it as a ProjectId: loadQueued, claimActivities, loadMessage, markSentMany, markFailed,
//   releaseClaim, requeueActivities, the scheduled-send and campaign-dispatch steps on a claimed row,
//   findCampaignById, triggerImportJob, applyNotificationRows, recordTrackingHits, findUnsubscribeTarget,
//   createResolveRepo's byTokens, skipDelivery, recordAttempt, lockDeliveryForRedelivery;
// - findProjectId, which turns a URL's or a header's id into a ProjectId once the project is found.
export * from "./api-keys";
export * from "./batcher";
export * from "./create-db";
export * from "./outbox";
export * from "./time-ordered-uuid";
export * from "./generated/prisma/client";
export { createMigration, deployMigrations, diffMigrationsToSchema } from "./migrations";
export * from "./sender-verified-sql";
// The driver types a repository signature may name (only packages/db imports pg itself).
export type { Pool, PoolClient, QueryResultRow } from "pg";
export * from "./activity-status";
export * from "./quota";
export * from "./activities.repo";
export * from "./leads";
export * from "./campaigns";
export * from "./imports";
export * from "./unsubscribe.repo";
export * from "./shop";
export * from "./scheduled-sends.repo";
export * from "./provider-outcomes.repo";
export * from "./tracking-hits.repo";
export * from "./send-statements.repo";
export * from "./send-claims.repo";
export * from "./threads.repo";
export * from "./reply-resolution.repo";
export * from "./webhook-deliveries.repo";
export * from "./suppressions.repo";
export * from "./identities.repo";
export * from "./projects.repo";
export * from "./activity-stats.repo";
export * from "./inbound-mail.repo";
export * from "./listing";
export * from "./autovacuum";
export * from "./send-limits.repo";
