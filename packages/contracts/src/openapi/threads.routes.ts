import { z } from "zod";
import { paginationSchema } from "../http/events";
import { listThreadsQuery, threadMessageSchema, threadSchema } from "../http/threads";
import { badRequest, internalError, notFound, type RouteDoc, unauthorized } from "./builder";

// The conversation API: the threads of inbound replies (spec 4.9, 6.2), scoped to the key's project.

export const threadRoutes: RouteDoc[] = [
  {
    service: "public-api",
    method: "get",
    path: "/v1/threads",
    tag: "Conversations",
    summary: "List reply threads, newest activity first",
    description:
      "A thread is an API send and the replies to it (matched by reply token, the legacy return path, " +
      "In-Reply-To, References or, last, the subject). Filters: the original send's `activity_id`, its " +
      "`campaign_id`, and `since` (a message at or after it).",
    query: listThreadsQuery,
    responses: {
      200: {
        description: "A page of threads",
        schema: z.object({
          success: z.literal(true),
          data: z.array(threadSchema),
          pagination: paginationSchema,
        }),
      },
      400: badRequest(),
      401: unauthorized,
      500: internalError,
    },
  },
  {
    service: "public-api",
    method: "get",
    path: "/v1/threads/{id}",
    tag: "Conversations",
    summary: "One thread: the original send and every reply, in order",
    pathParams: { id: { description: "The thread", format: "uuid" } },
    responses: {
      200: {
        description: "The thread and its messages, oldest first",
        schema: z.object({
          success: z.literal(true),
          thread: threadSchema,
          messages: z.array(threadMessageSchema),
        }),
      },
      401: unauthorized,
      404: notFound("No such thread in the key's project"),
      500: internalError,
    },
  },
  {
    service: "public-api",
    method: "get",
    path: "/v1/inbound/{id}/raw",
    tag: "Conversations",
    summary: "A received reply exactly as it arrived (RFC 5322 MIME)",
    pathParams: { id: { description: "The reply (`data.inbound_id` of the webhook)", format: "uuid" } },
    responses: {
      200: { description: "The MIME message", contentType: "message/rfc822" },
      401: unauthorized,
      404: notFound("No such reply in the key's project"),
      500: internalError,
    },
  },
];
