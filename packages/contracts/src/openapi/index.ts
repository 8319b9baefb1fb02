import { buildDocument, type RouteDoc } from "./builder";
import { domainRoutes } from "./domains.routes";
import { eventRoutes, leadRoutes } from "./leads-events.routes";
import { receiverRoutes } from "./receivers.routes";
import { sendRoutes } from "./sends.routes";
import { threadRoutes } from "./threads.routes";

export * from "./builder";
export { sendBatchBody } from "./sends.routes";

/** Every public route (through the gateway), in the order the reference shows them. */
export const publicRoutes: RouteDoc[] = [
  ...sendRoutes,
  ...eventRoutes,
  ...leadRoutes,
  ...threadRoutes,
  ...domainRoutes,
  ...receiverRoutes,
];

let cached: ReturnType<typeof buildDocument> | undefined;

/** The public API reference (OpenAPI 3.1), served at GET /v1/openapi.json. */
export function publicOpenApi(): ReturnType<typeof buildDocument> {
  cached ??= buildDocument(
    {
      title: "Email service API",
      version: "1.0.0",
      description:
        "Send email on your own Amazon SES account: individual, templated, scheduled and batch sends, domains and " +
        "sender addresses, custom events and leads, reply threads. Authenticate with `Authorization: Bearer <key>`; errors " +
        "answer `{ success: false, error }`.",
    },
    publicRoutes,
  );
  return cached;
}

/** `METHOD /express/:path` of every public route one service serves. */
export function publicRoutesOf(service: RouteDoc["service"]): string[] {
  return publicRoutes
    .filter((r) => r.service === service)
    .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/\{(\w+)\}/g, ":$1")}`)
    .sort();
}
