export * from "./send-requests";
export * from "./sender-address";
export * from "./leads";
export * from "./events";
export * from "./segments";
export * from "./idempotency";
export * from "./campaigns";
export * from "./shop";
