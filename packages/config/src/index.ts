export * from "./load-env";
export * from "./pieces";
