export * from "./base-deps";
export * from "./base-env";
export * from "./serve";
export * from "./run-service";
export * from "./base-app";
export * from "./outbox";
export * from "./redis";
