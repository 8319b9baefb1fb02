export * from "./auth";
export * from "./error-middleware";
export * from "./errors";
export * from "./finish-app";
export * from "./lifecycle";
export * from "./service-app";
export * from "./validate";
export * from "./json-body";
