export * from "./messaging";
export * from "./http";
export * from "./openapi";
export * from "./errors";
export * from "./reply-address";
export * from "./ids";
export * from "./project-id";
