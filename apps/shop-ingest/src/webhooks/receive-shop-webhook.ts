import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import {
  Exchanges,
  isUuid,
  makeEnvelope,
  RoutingKeys,
  type ProjectId,
  SHOP_LIMITS,
  shopDomainSchema,
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
import type { ShopLookups } from "./shop-cache";
import { shopHmacMatches } from "./verify-shop-hmac";

export const SHOP_WEBHOOK_PREFIX = "/webhooks/shop/";

const ROUTING_KEYS = {
  "cart/update": RoutingKeys.shopCartUpdate,
  "checkout/create": RoutingKeys.shopCheckoutCreate,
  "order/create": RoutingKeys.shopOrderCreate,
} as const satisfies Record<ShopTopic, string>;

/**
 * The one 401 answer: a bad signature where the shop has a secret, a domain connected to another project, and (for
 * a project that requires signed deliveries) an unsigned delivery all read the same, so a caller who knows a
 * project id cannot tell which domains are connected where beyond what the statuses themselves say.
 */
export const MSG_INVALID_HMAC = "Invalid HMAC signature";
export const MSG_PROJECT_HEADER = "x-project-id: must be the UUID of an existing project";
export const MSG_DOMAIN_HEADER =
  "x-shop-shop-domain: must be the store's domain name, e.g. example.myshop.com";

/** A key no shop has: an HMAC is computed for every 401, so the answer takes as long whichever check failed. */
const NO_SECRET = [randomBytes(32).toString("hex")];

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
 * POST /webhooks/shop/:topic (spec 4.9), checked in the spec's order of its answers:
 *   400  the topic; `x-project-id` (an existing project's UUID); `x-shop-shop-domain` (a domain name); the JSON and
 *        the topic's required fields; `x-shop-webhook-id`. Nothing is looked up by domain or stored before these.
 *   401  the HMAC of the raw body where the shop has a secret; a domain connected to another project; an unsigned
 *        delivery to a project that requires signed ones. One message for all (see MSG_INVALID_HMAC).
 *   409  a webhook id the shop already delivered (or 200 `duplicate: true` when the shop chose that: the platform
 *        retries every non-2xx answer and may drop a subscription that keeps failing).
 * A domain no project has is connected to the delivery's project without a secret (spec 7.9 checks the signature
 * only "when a platform secret is configured"), and its deliveries are stored marked unsigned. The delivery and
 * its outbox row are stored in one statement before the 200.
 */
export async function receiveShopWebhook(
  deps: {
    record: RecordShopWebhook;
    lookups: ShopLookups;
    kickOutbox: () => void;
    /** a delivery accepted unsigned, and whether it connected its domain */
    onUnsigned?: (connected: boolean) => void;
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
  const projectHeader = header(req, "x-project-id")?.trim().toLowerCase();
  const project = projectHeader && isUuid(projectHeader) ? await deps.lookups.project(projectHeader) : null;
  if (!project) throw new AppError(ErrorCode.VALIDATION, MSG_PROJECT_HEADER);
  const domainParsed = shopDomainSchema.safeParse(header(req, "x-shop-shop-domain") ?? "");
  if (!domainParsed.success) throw new AppError(ErrorCode.VALIDATION, MSG_DOMAIN_HEADER);
  const domain = domainParsed.data;

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

  const signature = header(req, "x-shop-hmac-sha256");
  const refuse = (): never => {
    shopHmacMatches(raw, signature, NO_SECRET); // the same work as a signature check, whatever was refused
    throw new AppError(ErrorCode.UNAUTHORIZED, MSG_INVALID_HMAC);
  };
  let found = await deps.lookups.shop(domain);
  let connected = false;
  if (!found) {
    if (project.require_signed_shop_webhooks) refuse();
    found = await deps.lookups.connect(project.project_id, domain);
    connected = found?.shop.project_id === project.project_id;
    if (!found) throw new AppError(ErrorCode.INTERNAL, "The shop connection could not be read back");
  }
  const { shop, secrets } = found;
  if (shop.project_id !== project.project_id) refuse();
  const signed = secrets.length > 0;
  if (signed ? !shopHmacMatches(raw, signature, secrets) : project.require_signed_shop_webhooks) refuse();

  const projectId: ProjectId = shop.project_id;
  const id = timeOrderedUuid();
  const envelope = makeEnvelope(ROUTING_KEYS[topic], { webhookEventIds: [id] }, { projectId });
  const outcome = await deps.record({
    id,
    projectId,
    shopId: shop.id,
    webhookId,
    topic,
    signed,
    // the body as received (PostgreSQL parses it into jsonb): the text JSON.parse just accepted
    payloadJson: json,
    outbox: { exchange: Exchanges.shopWebhooks, routingKey: ROUTING_KEYS[topic], payload: envelope },
  });
  if (outcome === "stored") {
    if (!signed) deps.onUnsigned?.(connected);
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
