export * from "./catalogue";
export * from "./envelope";
export * from "./names";
export * from "./payloads";
export * from "./topology";
