// The quota's SQL lives with its table in packages/db; the client-visible refusal is the send model's.
export { MONTHLY_QUOTA, QUOTA_REFUND_CTES, quotaUpsert, refundQuota, usagePeriod } from "@emailsvc/db";

export const MSG_QUOTA_EXCEEDED = "Monthly email quota exceeded (500,000 emails per month)";
