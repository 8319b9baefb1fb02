import { Router } from "express";
import {
  connectShopSchema,
  rotateShopSecretSchema,
  updateShopSchema,
  projectIdOf,
  type ProjectId,
} from "@emailsvc/contracts";
import {
  connectShop,
  type Db,
  deleteShop,
  findShop,
  listShops,
  rotateShopSecret,
  type ShopRow,
  updateShop,
} from "@emailsvc/db";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { z } from "zod";

const uuid = z.uuid();

/** A connection as the admin API shows it: whether a secret is set, never the secret. */
export function shopView(s: ShopRow) {
  return {
    id: s.id,
    project_id: s.project_id,
    shop_domain: s.shop_domain,
    has_secret: s.secret_enc !== null,
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

/** The admin API's project resolution: a URL's id becomes a ProjectId once the project is found. */
async function projectOf(db: Db, projectId: string): Promise<ProjectId> {
  const found =
    uuid.safeParse(projectId).success &&
    (await db.pool.query("SELECT 1 FROM projects WHERE id = $1", [projectId])).rowCount;
  if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
  return projectIdOf(projectId);
}

const notFound = () => new AppError(ErrorCode.NOT_FOUND, "Shop not found");

/** A template the abandoned-cart steps send must be the project's own. */
async function checkTemplate(db: Db, projectId: ProjectId, templateId: string | null | undefined) {
  if (!templateId) return;
  const r = await db.pool.query("SELECT 1 FROM templates WHERE project_id = $1 AND id = $2", [
    projectId,
    templateId,
  ]);
  if (!r.rowCount)
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
    if (!shop)
      throw new AppError(ErrorCode.CONFLICT, `${body.shop_domain} is already connected to a project`);
    res.status(201).json({ success: true, shop: shopView(shop) });
  });

  r.get("/projects/:projectId/shops", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    res.json({ success: true, shops: (await listShops(db, projectId)).map(shopView) });
  });

  r.get("/projects/:projectId/shops/:shopId", async (req, res) => {
    const projectId = await projectOf(db, req.params.projectId);
    const shop = uuid.safeParse(req.params.shopId).success
      ? await findShop(db, projectId, req.params.shopId)
      : undefined;
    if (!shop) throw notFound();
    res.json({ success: true, shop: shopView(shop) });
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
