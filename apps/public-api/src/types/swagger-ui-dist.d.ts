// swagger-ui-dist ships no types; this is the one function of it we use.
declare module "swagger-ui-dist" {
  /** The folder holding swagger-ui-bundle.js, swagger-ui.css and the rest of the static bundle. */
  export function getAbsoluteFSPath(): string;
}
