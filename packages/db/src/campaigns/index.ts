// The campaigns aggregate: campaigns, their recipient ledger, the warm-up ramp's day counts. Shared by public-api's
// admin API (create, manage, pre-flight) and campaign-dispatcher (materialise, dispatch, settle).
export * from "./campaign-status";
export * from "./campaign-audience";
export * from "./campaigns.repo";
export * from "./campaign-dispatch.repo";
export * from "./campaign-stats";
export * from "./lead-variables";
export * from "./campaign-preflight.repo";
