export * from "./load-env";
export * from "./pieces";
export * from "./production-secrets";
