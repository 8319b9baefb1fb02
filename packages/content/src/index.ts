export * from "./email-content";
export * from "./escape-html";
export * from "./inject-tracking";
export * from "./render-double-braces";
export * from "./render-template";
export * from "./text-part";
export * from "./tracking-signature";
export * from "./unsubscribe-footer";
