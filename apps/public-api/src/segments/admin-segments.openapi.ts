import { createSegmentSchema, segmentPreviewSchema } from "@emailsvc/contracts";
import { type Json, type Ok, projectIdParam } from "../docs/openapi-parts";

const projectId = projectIdParam;

/** The segment routes of the admin API, for adminOpenApi. */
export function segmentPaths(json: Json, ok: Ok) {
  return {
    "/admin/projects/{projectId}/segments": {
      parameters: [projectId],
      get: { summary: "Segments with their live member counts", responses: { 200: ok("segments") } },
      post: {
        summary:
          "Create a static segment (members added through POST /v1/leads/:id/segments) or a dynamic one (a filter " +
          "over attributes, tags, subscription and event history, compiled to parameterised SQL)",
        requestBody: json(createSegmentSchema),
        responses: { 201: ok("segment with member_count"), 409: ok("a segment of that name exists") },
      },
    },
    "/admin/projects/{projectId}/segments/preview": {
      parameters: [projectId],
      post: {
        summary:
          "Count the leads a dynamic segment's filter matches now, before it is saved (the builder's live count): " +
          "exact up to 10,000 within a second, else the planner's estimate with exact: false",
        requestBody: json(segmentPreviewSchema),
        responses: { 200: ok("count and exact") },
      },
    },
    "/admin/projects/{projectId}/segments/{segmentId}": {
      parameters: [
        projectId,
        { name: "segmentId", in: "path", required: true, schema: { type: "string", format: "uuid" } },
      ],
      get: { summary: "A segment with its live member count", responses: { 200: ok("segment") } },
      delete: { summary: "Delete a segment (its leads stay)", responses: { 200: ok("deleted") } },
    },
  };
}
