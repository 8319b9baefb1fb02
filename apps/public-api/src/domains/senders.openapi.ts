import { addSenderSchema } from "./senders.schemas";
import { type Json, type Ok, projectIdParam } from "../docs/openapi-parts";

const projectId = projectIdParam;

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
