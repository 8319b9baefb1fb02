import type { IncomingMessage } from "node:http";
import {
  Exchanges,
  isUuid,
  makeEnvelope,
  RoutingKeys,
  SHOP_LIMITS,
  shopPayloadChecks,
  shopTopicOf,
  type ShopTopic,
} from "@emailsvc/contracts";
import { type NewShopWebhook, timeOrderedUuid } from "@emailsvc/db";
import {
  AppError,
  ErrorCode,
  jsonBodyProblem,
  parseInput,
  readRawBody,
  type FastAnswer,
} from "@emailsvc/http";
import type { CachedShop } from "./shop-cache";
import { shopHmacMatches } from "./verify-shop-hmac";

export const SHOP_WEBHOOK_PREFIX = "/webhooks/shop/";

const ROUTING_KEYS = {
  "cart/update": RoutingKeys.shopCartUpdate,
  "checkout/create": RoutingKeys.shopCheckoutCreate,
  "order/create": RoutingKeys.shopOrderCreate,
} as const satisfies Record<ShopTopic, string>;

export const MSG_INVALID_HMAC = "Invalid HMAC signature";
export const MSG_UNKNOWN_SHOP = "Unknown shop: no shop with this x-shop-shop-domain is connected";
export const MSG_PROJECT_MISMATCH = "x-project-id does not match the project this shop is connected to";

/**
 * A number jsonb refuses or blows up: it keeps numbers as PostgreSQL numerics, which end at 1e131072 and 16,383
 * decimals (the insert failed with a 500) and write 1e100000 back as 100,001 digits. So a body may not hold 100
 * digits in a row, nor an exponent past a double's (±308); strings are skipped.
 */
function hugeNumber(json: string): boolean {
  if (!/\d{100}|[eE][+-]?\d{3}/.test(json)) return false; // a cheap first look, strings included
  for (const m of json.matchAll(/"(?:[^"\\]|\\.)*"|[eE][+-]?(\d{3,})|\d{100,}/g))
    if (m[0][0] !== '"' && (m[1] === undefined || Number(m[1]) > 308)) return true;
  return false;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `/webhooks/shop/cart/update` (or `cart%2Fupdate`, or the platform's plural `carts/update`) → its topic. */
function topicOfUrl(url: string): ShopTopic | null {
  const path = url.slice(SHOP_WEBHOOK_PREFIX.length).split("?")[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  return shopTopicOf(decoded.replace(/\/+$/, ""));
}

/** Stores one delivery with its outbox row (group-committed with the concurrent ones: `recordShopWebhooks`). */
export type RecordShopWebhook = (
  row: Omit<NewShopWebhook, "payload"> & { payloadJson: string },
) => Promise<"stored" | "duplicate">;

/**
 * POST /webhooks/shop/:topic (spec 4.9). In order: the topic (400), the shop by `x-shop-shop-domain` and its
 * project by `x-project-id` (401), the HMAC of the raw body when the shop has a secret (401), the JSON and the
 * topic's required fields (400), `x-shop-webhook-id` (400). Then the delivery and its outbox row are stored in one
 * statement before the 200; a webhook id the shop already delivered answers 409, or 200 `duplicate: true` when the
 * shop chose that (the platform retries every non-2xx answer and may drop a subscription that keeps failing).
 */
export async function receiveShopWebhook(
  deps: {
    record: RecordShopWebhook;
    shops: (domain: string) => Promise<CachedShop | null>;
    kickOutbox: () => void;
  },
  req: IncomingMessage,
): Promise<FastAnswer> {
  const topic = topicOfUrl(req.url ?? "");
  if (!topic)
    throw new AppError(
      ErrorCode.VALIDATION,
      "Unsupported topic: expected cart/update, checkout/create or order/create",
    );
  const raw = await readRawBody(req, SHOP_LIMITS.bodyBytes);
  const domain = header(req, "x-shop-shop-domain")?.trim().toLowerCase();
  const found = domain ? await deps.shops(domain) : null;
  if (!found) throw new AppError(ErrorCode.UNAUTHORIZED, MSG_UNKNOWN_SHOP);
  const { shop, secrets } = found;
  const projectId = header(req, "x-project-id")?.trim();
  if (!projectId || !isUuid(projectId) || projectId.toLowerCase() !== shop.project_id)
    throw new AppError(ErrorCode.UNAUTHORIZED, MSG_PROJECT_MISMATCH);
  if (secrets.length && !shopHmacMatches(raw, header(req, "x-shop-hmac-sha256"), secrets))
    throw new AppError(ErrorCode.UNAUTHORIZED, MSG_INVALID_HMAC);

  let body: unknown;
  const json = raw.toString("utf8");
  try {
    body = JSON.parse(json);
  } catch {
    throw new AppError(ErrorCode.VALIDATION, "Invalid JSON body");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new AppError(ErrorCode.VALIDATION, "Request body must be a JSON object");
  const problem = jsonBodyProblem(body);
  if (problem) throw new AppError(ErrorCode.VALIDATION, problem);
  if (hugeNumber(json))
    throw new AppError(
      ErrorCode.VALIDATION,
      "Request body holds a number out of range (100 digits or more, or an exponent past ±308)",
    );
  parseInput(shopPayloadChecks[topic], body);
  const webhookId = header(req, "x-shop-webhook-id")?.trim();
  if (!webhookId || webhookId.length > 255)
    throw new AppError(ErrorCode.VALIDATION, "x-shop-webhook-id: is required (1 to 255 characters)");

  const id = timeOrderedUuid();
  const envelope = makeEnvelope(
    ROUTING_KEYS[topic],
    { webhookEventIds: [id] },
    { projectId: shop.project_id },
  );
  const outcome = await deps.record({
    id,
    projectId: shop.project_id,
    shopId: shop.id,
    webhookId,
    topic,
    // the body as received (PostgreSQL parses it into jsonb): the text JSON.parse just accepted
    payloadJson: json,
    outbox: { exchange: Exchanges.shopWebhooks, routingKey: ROUTING_KEYS[topic], payload: envelope },
  });
  if (outcome === "stored") {
    deps.kickOutbox();
    return { status: 200, body: { success: true, message: `Webhook ${topic} received` } };
  }
  if (shop.duplicate_answer === "ok")
    return {
      status: 200,
      body: { success: true, duplicate: true, message: "Duplicate webhook: already received" },
    };
  throw new AppError(ErrorCode.CONFLICT, "Duplicate webhook: already received");
}
