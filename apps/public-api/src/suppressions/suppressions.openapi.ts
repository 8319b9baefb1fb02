import { z } from "zod";
import { addSuppressionBody, listSuppressionsQuery } from "./suppressions.routes";

/** The suppressions page's routes, for adminOpenApi. */
export function suppressionPaths(ok: (d: string) => { description: string }) {
  const projectId = {
    name: "projectId",
    in: "path",
    required: true,
    schema: { type: "string", format: "uuid" },
  };
  return {
    "/admin/projects/{projectId}/suppressions": {
      parameters: [projectId],
      get: {
        summary:
          "The project's suppressed addresses in address order, each with its reason and date: searched by the " +
          "start of the address (search), by reason, keyset-paged (cursor)",
        parameters: Object.keys(listSuppressionsQuery.shape).map((name) => ({
          name,
          in: "query",
          required: false,
          schema: { type: "string" },
        })),
        responses: { 200: ok("suppressions, next_cursor (null on the last page)") },
      },
      post: {
        summary: "Suppress an address by hand (reason manual unless given): no email is sent to it any more",
        requestBody: {
          content: {
            "application/json": {
              schema: z.toJSONSchema(addSuppressionBody, { io: "input", unrepresentable: "any" }),
            },
          },
        },
        responses: { 201: ok("suppression"), 409: ok("already suppressed (its reason and date)") },
      },
    },
    "/admin/projects/{projectId}/suppressions/{suppression}": {
      parameters: [
        projectId,
        {
          name: "suppression",
          in: "path",
          required: true,
          description: "the suppression's id or the address",
          schema: { type: "string" },
        },
      ],
      delete: {
        summary: "Lift a suppression: the address is sent to again",
        responses: { 200: ok("removed"), 404: ok("not on the list") },
      },
    },
  };
}
