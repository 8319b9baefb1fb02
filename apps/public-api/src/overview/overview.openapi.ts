import { OVERVIEW_RANGES } from "./get-overview";
import { type Ok } from "../docs/openapi-parts";

/** The overview route, for adminOpenApi. */
export function overviewPaths(ok: Ok) {
  return {
    "/admin/projects/{projectId}/overview": {
      parameters: [
        { name: "projectId", in: "path", required: true, schema: { type: "string", format: "uuid" } },
      ],
      get: {
        summary:
          "Sent, delivered, opened, clicked, bounced, complained and failed over 24 h (per hour) or 7 / 30 days (per " +
          "day in the project's time zone), with rates against the bounce and complaint lines and the quotas used",
        parameters: [
          {
            name: "range",
            in: "query",
            required: false,
            schema: { type: "string", enum: [...OVERVIEW_RANGES], default: "7d" },
          },
          {
            name: "mode",
            in: "query",
            required: false,
            schema: { type: "string", enum: ["live", "test"], default: "live" },
          },
        ],
        responses: {
          200: ok(
            "range, mode, time_zone, bucket, series [{ at, sent, delivered, opened, clicked, bounced, complained, " +
              "failed }], totals, rates (null where the denominator is 0), rate_lines, quota { today, month, provider }",
          ),
        },
      },
    },
  };
}
