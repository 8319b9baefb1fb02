export * from "./send-requests";
export * from "./sender-address";
