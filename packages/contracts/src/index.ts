export * from "./messaging";
export * from "./http";
