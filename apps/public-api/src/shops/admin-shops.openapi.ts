import type { z } from "zod";
import { connectShopSchema, rotateShopSecretSchema, updateShopSchema } from "@emailsvc/contracts";
import { type Ok } from "../docs/openapi-parts";

type Json = (schema: z.ZodType) => unknown;

const id = (name: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
});

/** The shop connection routes of the admin API (spec 4.9's e-commerce receiver), for adminOpenApi. */
export function shopPaths(json: Json, ok: Ok) {
  const shop = [id("projectId"), id("shopId")];
  return {
    "/admin/projects/{projectId}/shops": {
      parameters: [id("projectId")],
      get: {
        summary: "The project's shop connections (never their secrets)",
        responses: {
          200: ok(
            "shops, each with signed (false: no secret, deliveries accepted unchecked: configure a secret), " +
              "connected_by (admin | delivery: a webhook for a domain no project had connected it), " +
              "unsigned_deliveries, and abandoned_cart_enabled with abandoned_cart_off_reason (why not)",
          ),
        },
      },
      post: {
        summary:
          "Connect a shop domain with its webhook secret, attribution windows and abandoned-cart steps",
        requestBody: json(connectShopSchema),
        responses: {
          201: ok("shop"),
          409: ok(
            "the domain is already connected: the error names the project, and project_id, project_name and " +
              "shop_id say where",
          ),
        },
      },
    },
    "/admin/projects/{projectId}/shops/{shopId}": {
      parameters: shop,
      get: { summary: "A shop connection", responses: { 200: ok("shop") } },
      patch: {
        summary:
          "Change a shop's duplicate answer, attribution windows, abandoned-cart steps, or allow abandoned-cart " +
          "emails for its unsigned checkouts (allow_unsigned_abandoned_cart)",
        requestBody: json(updateShopSchema),
        responses: { 200: ok("shop") },
      },
      delete: {
        summary: "Disconnect a shop (its deliveries are refused from then on)",
        responses: { 200: ok("deleted") },
      },
    },
    "/admin/projects/{projectId}/shops/{shopId}/rotate-secret": {
      parameters: shop,
      post: {
        summary: "A new webhook secret; the previous one stays valid for grace_minutes (default 60)",
        requestBody: json(rotateShopSecretSchema),
        responses: { 200: ok("shop") },
      },
    },
  };
}
