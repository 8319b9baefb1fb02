export * from "./messaging";
export * from "./http";
export * from "./openapi";
