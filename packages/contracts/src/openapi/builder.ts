import { z } from "zod";

/**
 * The public API reference is built from route descriptions kept beside the contracts' zod schemas, so the
 * document cannot describe a body the services do not parse. Each route names the service that serves it: the
 * services' tests check that what they serve and what is listed here are the same set, and the gateway test
 * checks that each path reaches that service.
 */
export type PublicService =
  "public-api" | "domain-service" | "notification-ingest" | "inbound-mail" | "shop-ingest";
export type HttpMethod = "get" | "post" | "put" | "delete" | "patch";

export interface ResponseDoc {
  description: string;
  /** JSON body schema; omitted for answers without a JSON body (redirects, images, HTML pages). */
  schema?: z.ZodType;
  /** Non-JSON answers (image/gif, text/html). */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDoc {
  service: PublicService;
  method: HttpMethod;
  /** OpenAPI form (`/v1/leads/{id}`); the Express form replaces `{x}` with `:x`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Bearer API key (spec 5) unless `none`: receivers and tracking links authenticate by signature. */
  auth?: "bearer" | "none";
  pathParams?: Record<string, { description: string; format?: "uuid" }>;
  query?: z.ZodObject;
  headers?: Record<string, { description: string; required?: boolean }>;
  body?: z.ZodType;
  bodyContentType?: string;
  responses: Record<number, ResponseDoc>;
}

export const errorBody = z.object({
  success: z.literal(false),
  error: z.string().describe("What is wrong, naming the field where one is at fault"),
});

/** The answers shared by every Bearer route (spec 5: both 401 bodies). */
export const unauthorized: ResponseDoc = {
  description:
    "Missing or invalid key (`Unauthorized: Invalid or missing API key`), or an unknown prefix " +
    "(`Invalid API key prefix. Expected sk_proj_*, sk_live_* or sk_test_*.`)",
  schema: errorBody,
};
export const badRequest = (description = "Invalid input; `error` names the field"): ResponseDoc => ({
  description,
  schema: errorBody,
});
export const notFound = (description = "Not found in the key's project"): ResponseDoc => ({
  description,
  schema: errorBody,
});
export const internalError: ResponseDoc = { description: "Internal error", schema: errorBody };

export const toExpressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });

function operation(route: RouteDoc): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [];
  for (const name of route.path.match(/\{(\w+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
    const p = route.pathParams?.[name];
    parameters.push({
      name,
      in: "path",
      required: true,
      description: p?.description,
      schema: { type: "string", ...(p?.format ? { format: p.format } : {}) },
    });
  }
  if (route.query) {
    const shape = route.query.shape as Record<string, z.ZodType>;
    const required = new Set(
      ((jsonSchema(route.query, "input") as { required?: string[] }).required ?? []) as string[],
    );
    for (const [name, schema] of Object.entries(shape)) {
      const { $schema: _s, ...s } = jsonSchema(schema, "input") as Record<string, unknown>;
      parameters.push({
        name,
        in: "query",
        required: required.has(name),
        description: schema.description,
        schema: s,
      });
    }
  }
  for (const [name, h] of Object.entries(route.headers ?? {}))
    parameters.push({
      name,
      in: "header",
      required: h.required ?? false,
      description: h.description,
      schema: { type: "string" },
    });

  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(route.responses)) {
    const content = r.schema
      ? { [r.contentType ?? "application/json"]: { schema: strip(jsonSchema(r.schema, "output")) } }
      : r.contentType
        ? { [r.contentType]: {} }
        : undefined;
    const headers = r.headers
      ? Object.fromEntries(
          Object.entries(r.headers).map(([h, d]) => [h, { description: d, schema: { type: "string" } }]),
        )
      : undefined;
    responses[status] = {
      description: r.description,
      ...(content ? { content } : {}),
      ...(headers ? { headers } : {}),
    };
  }
  return {
    operationId: `${route.method}${route.path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_m, c?: string) => (c ? c.toUpperCase() : ""))}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    "x-service": route.service,
    security: route.auth === "none" ? [] : [{ apiKey: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: {
              [route.bodyContentType ?? "application/json"]: {
                schema: strip(jsonSchema(route.body, "input")),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** `$schema` belongs to a standalone JSON Schema, not to one embedded in an OpenAPI document. */
function strip(schema: object): object {
  const { $schema: _s, ...rest } = schema as Record<string, unknown>;
  return rest;
}

export function buildDocument(
  info: { title: string; version: string; description: string },
  routes: RouteDoc[],
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    if (item[route.method])
      throw new Error(`OpenAPI: ${route.method.toUpperCase()} ${route.path} listed twice`);
    item[route.method] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info,
    servers: [{ url: "/", description: "The gateway's base URL" }],
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description:
            "A project key: `sk_live_…` (or legacy `sk_proj_…`) for live mode, `sk_test_…` for test mode",
        },
      },
    },
    paths,
  };
}
