import { Router } from "express";
import {
  connectShopSchema,
  rotateShopSecretSchema,
  updateShopSchema,
  type ProjectId,
  UNSIGNED_ABANDONED_CART_OFF,
} from "@emailsvc/contracts";
import {
  connectShop,
  countUnsignedDeliveries,
  type Db,
  deleteShop,
  findShop,
  findShopOwner,
  listShops,
  projectOwnsTemplate,
  rotateShopSecret,
  type ShopRow,
  updateShop,
} from "@emailsvc/db";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { z } from "zod";
import { projectOf } from "../projects/project-of";

const uuid = z.uuid();

/**
 * Why the shop sends no abandoned-cart emails, or null when it does: the first of no steps, no template and sender,
 * and an unsigned shop the operator has not allowed to send them.
 */
function abandonedCartOffReason(s: ShopRow): string | null {
  if (!s.abandoned_steps_minutes.length) return "abandoned_steps_minutes is empty";
  if (!s.abandoned_template_id || !s.abandoned_from_email)
    return "the shop has no abandoned_template_id and abandoned_from_email";
  if (s.secret_enc === null && !s.allow_unsigned_abandoned_cart) return UNSIGNED_ABANDONED_CART_OFF;
  return null;
}

/**
 * A connection as the admin API shows it: whether a secret is set, never the secret. `signed: false` (no secret)
 * is what the dashboard turns into "configure a secret"; `unsigned_deliveries` counts what it accepted unchecked.
 */
export function shopView(s: ShopRow, unsignedDeliveries = 0) {
  const offReason = abandonedCartOffReason(s);
  return {
    id: s.id,
    project_id: s.project_id,
    shop_domain: s.shop_domain,
    has_secret: s.secret_enc !== null,
    // deliveries are HMAC-checked only with a secret (spec 7.9); without one they are accepted unsigned
    signed: s.secret_enc !== null,
    // 'admin': connected here; 'delivery': a webhook for a domain no project had connected it, without a secret
    connected_by: s.connected_by,
    unsigned_deliveries: unsignedDeliveries,
    allow_unsigned_abandoned_cart: s.allow_unsigned_abandoned_cart,
    abandoned_cart_enabled: offReason === null,
    abandoned_cart_off_reason: offReason,
    previous_secret_valid_until:
      s.previous_secret_enc && s.previous_secret_expires_at && s.previous_secret_expires_at > new Date()
        ? s.previous_secret_expires_at.toISOString()
        : null,
    duplicate_answer: s.duplicate_answer,
    click_window_hours: s.click_window_hours,
    open_window_hours: s.open_window_hours,
    abandoned_steps_minutes: s.abandoned_steps_minutes,
    abandoned_template_id: s.abandoned_template_id,
    abandoned_from_email: s.abandoned_from_email,
    abandoned_from_name: s.abandoned_from_name,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}

const notFound = () => new AppError(ErrorCode.NOT_FOUND, "Shop not found");

/** A template the abandoned-cart steps send must be the project's own. */
async function checkTemplate(db: Db, projectId: ProjectId, templateId: string | null | undefined) {
  if (!templateId) return;
  if (!(await projectOwnsTemplate(db, projectId, templateId)))
    throw new AppError(ErrorCode.VALIDATION, "abandoned_template_id: no such template in the project");
}

/**
 * Admin: a project's shop connections (spec 4.9's e-commerce receiver). Connect a domain with its webhook secret,
 * change the attribution windows and abandoned-cart steps, rotate the secret (the old one stays valid for a grace
 * period: the platform takes up to an hour to switch), disconnect.
 */
export function adminShopsRouter(deps: { db: Db; encryptionKey: string }): Router {
  const { db } = deps;
  const r = Router();

  r.post("/projects/:projectId/shops", async (req, res) => {
    const body = parseInput(connectShopSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    await checkTemplate(db, projectId, body.abandoned_template_id);
    const shop = await connectShop(db, projectId, body, deps.encryptionKey);
    if (!shop) {
      // The operator has no other way to find where the domain is (the admin API is theirs alone).
      const owner = await findShopOwner(db, body.shop_domain);
      throw new AppError(
        ErrorCode.CONFLICT,
        owner
          ? `${body.shop_domain} is already connected to project "${owner.project_name}" (${owner.project_id}); ` +
              `disconnect it there (DELETE /admin/projects/${owner.project_id}/shops/${owner.shop_id}) to connect it here`
          : `${body.shop_domain} is already connected to a project`,
        owner
          ? {
              extra: {
                project_id: owner.project_id,
                project_name: owner.project_name,
                shop_id: owner.shop_id,
              },
            }
          : undefined,
      );
    }
    res.status(201).json({ success: true, shop: shopView(shop) });
  });

  r.get("/projects/:projectId/shops", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const shops = await listShops(db, projectId);
    const unsigned = await countUnsignedDeliveries(
      db,
      projectId,
      shops.map((s) => s.id),
    );
    res.json({ success: true, shops: shops.map((s) => shopView(s, unsigned.get(s.id) ?? 0)) });
  });

  r.get("/projects/:projectId/shops/:shopId", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const shop = uuid.safeParse(req.params.shopId).success
      ? await findShop(db, projectId, req.params.shopId)
      : undefined;
    if (!shop) throw notFound();
    const unsigned = await countUnsignedDeliveries(db, projectId, [shop.id]);
    res.json({ success: true, shop: shopView(shop, unsigned.get(shop.id) ?? 0) });
  });

  r.patch("/projects/:projectId/shops/:shopId", async (req, res) => {
    const body = parseInput(updateShopSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    if (!uuid.safeParse(req.params.shopId).success) throw notFound();
    await checkTemplate(db, projectId, body.abandoned_template_id);
    const shop = await updateShop(db, projectId, req.params.shopId, body);
    if (!shop) throw notFound();
    res.json({ success: true, shop: shopView(shop) });
  });

  r.post("/projects/:projectId/shops/:shopId/rotate-secret", async (req, res) => {
    const body = parseInput(rotateShopSecretSchema, req.body);
    const projectId = await projectOf(db, req.params.projectId);
    if (!uuid.safeParse(req.params.shopId).success) throw notFound();
    const shop = await rotateShopSecret(
      db,
      projectId,
      req.params.shopId,
      body.secret,
      body.grace_minutes ?? 60,
      deps.encryptionKey,
    );
    if (!shop) throw notFound();
    res.json({ success: true, shop: shopView(shop) });
  });

  r.delete("/projects/:projectId/shops/:shopId", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    if (!uuid.safeParse(req.params.shopId).success || !(await deleteShop(db, projectId, req.params.shopId)))
      throw notFound();
    res.json({ success: true });
  });

  return r;
}
