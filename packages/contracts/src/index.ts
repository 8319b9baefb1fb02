export * from "./messaging";
