// The one way to create sends, for every source (API, internal, scheduled, campaign, automation): the gates
// (sender check, suppressions, idempotency, quota) and the rows (message, activities, reply tokens, outbox) in
// one statement, answered with a domain result. HTTP wording stays in the apps.
export * from "./accept-send";
export * from "./accept-send-group";
export * from "./idempotent-replay";
export * from "./accept-batch";
export * from "./filter-suppressed";
export * from "./quota";
export * from "./sender-check";
export * from "./template-cache";
export * from "./template.repo";
export * from "./types";
export * from "./slices";
export * from "./send-requests";
