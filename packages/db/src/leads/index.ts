// The leads aggregate: leads, segments and custom events, shared by public-api, imports, campaigns and shop.
export * from "./leads.repo";
export * from "./segments.repo";
export * from "./segment-filter";
export * from "./upsert-leads";
export * from "./ensure-leads";
export * from "./track-events";
