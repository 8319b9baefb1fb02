export * from "./send-requests";
