import type { z } from "zod";
import { connectShopSchema, rotateShopSecretSchema, updateShopSchema } from "@emailsvc/contracts";

type Json = (schema: z.ZodType) => unknown;
type Ok = (description: string) => { description: string };

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
        responses: { 200: ok("shops") },
      },
      post: {
        summary:
          "Connect a shop domain with its webhook secret, attribution windows and abandoned-cart steps",
        requestBody: json(connectShopSchema),
        responses: { 201: ok("shop"), 409: ok("the domain is already connected") },
      },
    },
    "/admin/projects/{projectId}/shops/{shopId}": {
      parameters: shop,
      get: { summary: "A shop connection", responses: { 200: ok("shop") } },
      patch: {
        summary: "Change a shop's duplicate answer, attribution windows or abandoned-cart steps",
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
