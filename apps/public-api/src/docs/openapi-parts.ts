import type { z } from "zod";

// The pieces every feature's `*.openapi.ts` builds its admin paths from (admin/admin.openapi.ts passes `json` and
// `ok`, and lists the features' paths).

/** A JSON request body generated from a zod schema. */
export type Json = (schema: z.ZodType) => { content: { "application/json": { schema: unknown } } };
/** An answer with its description. */
export type Ok = (description: string) => { description: string };

/** The `{projectId}` path parameter of every project-scoped admin route. */
export const projectIdParam = {
  name: "projectId",
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
};

/** A zod query schema's fields as optional string query parameters. */
export const queryParams = (schema: z.ZodObject) =>
  Object.keys(schema.shape).map((name) => ({
    name,
    in: "query",
    required: false,
    schema: { type: "string" },
  }));
