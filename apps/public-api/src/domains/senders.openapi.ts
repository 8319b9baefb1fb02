import type { z } from "zod";
import { addSenderSchema } from "./senders.schemas";

type Json = (schema: z.ZodType) => { content: { "application/json": { schema: unknown } } };
type Ok = (description: string) => { description: string };

const projectId = {
  name: "projectId",
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
};

/** The sender routes, for adminOpenApi. */
export function senderPaths(json: Json, ok: Ok) {
  return {
    "/admin/projects/{projectId}/senders": {
      parameters: [projectId],
      post: {
        summary: "Add a verified sender address (local use)",
        requestBody: json(addSenderSchema),
        responses: { 201: ok("sender"), 409: ok("the address or its domain belongs to another project") },
      },
    },
  };
}
