import type { ProjectId } from "@emailsvc/contracts";
import { decryptSecret, encryptSecret } from "../api-keys";
import type { Db } from "../create-db";
import { timeOrderedUuid } from "../time-ordered-uuid";

/** A shop connection as the database holds it (secrets still encrypted). */
export interface ShopRow {
  id: string;
  project_id: ProjectId;
  shop_domain: string;
  secret_enc: string | null;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  duplicate_answer: "conflict" | "ok";
  click_window_hours: number;
  open_window_hours: number;
  abandoned_steps_minutes: number[];
  abandoned_template_id: string | null;
  abandoned_from_email: string | null;
  abandoned_from_name: string | null;
  /** 'admin': the operator connected it; 'delivery': a webhook for an unconnected domain did (no secret) */
  connected_by: "admin" | "delivery";
  /** abandoned-cart emails for checkouts delivered unsigned (off unless the operator turns them on) */
  allow_unsigned_abandoned_cart: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, project_id, shop_domain, secret_enc, previous_secret_enc, previous_secret_expires_at,
  duplicate_answer, click_window_hours, open_window_hours, abandoned_steps_minutes, abandoned_template_id,
  abandoned_from_email, abandoned_from_name, connected_by, allow_unsigned_abandoned_cart, created_at, updated_at`;

/** The settings a connection carries besides its domain and secret. */
export interface ShopSettings {
  duplicate_answer?: "conflict" | "ok";
  click_window_hours?: number;
  open_window_hours?: number;
  abandoned_steps_minutes?: number[];
  abandoned_template_id?: string | null;
  abandoned_from_email?: string | null;
  abandoned_from_name?: string | null;
  allow_unsigned_abandoned_cart?: boolean;
}

const SETTING_COLUMNS = [
  "duplicate_answer",
  "click_window_hours",
  "open_window_hours",
  "abandoned_steps_minutes",
  "abandoned_template_id",
  "abandoned_from_email",
  "abandoned_from_name",
  "allow_unsigned_abandoned_cart",
] as const;

/**
 * The connection of a shop domain, whatever its project: the receiver looks the shop up by the domain header, then
 * checks that `x-project-id` names this connection's project (401 otherwise), or connects an unknown domain there.
 */
export async function findShopByDomain(db: Db, shopDomain: string): Promise<ShopRow | undefined> {
  return (
    await db.pool.query<ShopRow>(`SELECT ${COLUMNS} FROM shop_connections WHERE shop_domain = $1`, [
      shopDomain.toLowerCase(),
    ])
  ).rows[0];
}

/**
 * Connects a domain no project has to the project a delivery named (`x-project-id`), without a secret: its
 * deliveries are unsigned until the operator sets one. Undefined when the domain was connected meanwhile (to this
 * project or another: the caller reads it again).
 */
export async function connectShopFromDelivery(
  db: Pick<Db, "pool">,
  projectId: ProjectId,
  shopDomain: string,
): Promise<ShopRow | undefined> {
  const { rows } = await db.pool.query<ShopRow>(
    `INSERT INTO shop_connections (id, project_id, shop_domain, connected_by) VALUES ($1, $2, $3, 'delivery')
     ON CONFLICT (shop_domain) DO NOTHING RETURNING ${COLUMNS}`,
    [timeOrderedUuid(), projectId, shopDomain.toLowerCase()],
  );
  return rows[0];
}

/** What the shop receiver needs of the project a delivery names; undefined when there is no such project. */
export interface ShopProjectPolicy {
  project_id: ProjectId;
  /** refuse unsigned deliveries (401) instead of accepting them as unsigned */
  require_signed_shop_webhooks: boolean;
}

export async function findShopProjectPolicy(
  db: Pick<Db, "pool">,
  projectId: string,
): Promise<ShopProjectPolicy | undefined> {
  return (
    await db.pool.query<ShopProjectPolicy>(
      "SELECT id AS project_id, require_signed_shop_webhooks FROM projects WHERE id = $1",
      [projectId],
    )
  ).rows[0];
}

/** The project a shop domain is connected to, by name too (the admin API's 409 says which one). */
export async function findShopOwner(
  db: Pick<Db, "pool">,
  shopDomain: string,
): Promise<{ project_id: ProjectId; project_name: string; shop_id: string } | undefined> {
  return (
    await db.pool.query<{ project_id: ProjectId; project_name: string; shop_id: string }>(
      `SELECT sc.project_id, p.name AS project_name, sc.id AS shop_id
         FROM shop_connections sc JOIN projects p ON p.id = sc.project_id WHERE sc.shop_domain = $1`,
      [shopDomain.toLowerCase()],
    )
  ).rows[0];
}

/**
 * Deliveries each shop accepted unsigned (no secret to check them with), for the admin API. Read when asked rather
 * than counted on the receiver's hot path: the deliveries of one shop, by the (shop, webhook id) index.
 */
export async function countUnsignedDeliveries(
  db: Pick<Db, "pool">,
  projectId: ProjectId,
  shopIds: string[],
): Promise<Map<string, number>> {
  const { rows } = await db.pool.query<{ shop_id: string; n: number }>(
    `SELECT shop_id, count(*)::int AS n FROM shop_webhook_events
      WHERE project_id = $1 AND shop_id = ANY($2::uuid[]) AND NOT signed GROUP BY shop_id`,
    [projectId, shopIds],
  );
  return new Map(rows.map((r) => [r.shop_id, r.n]));
}

export async function findShop(db: Db, projectId: ProjectId, shopId: string): Promise<ShopRow | undefined> {
  return (
    await db.pool.query<ShopRow>(
      `SELECT ${COLUMNS} FROM shop_connections WHERE project_id = $1 AND id = $2`,
      [projectId, shopId],
    )
  ).rows[0];
}

export async function listShops(db: Db, projectId: ProjectId): Promise<ShopRow[]> {
  return (
    await db.pool.query<ShopRow>(
      `SELECT ${COLUMNS} FROM shop_connections WHERE project_id = $1 ORDER BY created_at`,
      [projectId],
    )
  ).rows;
}

/** Connects a domain to the project; undefined when the domain is already connected (to any project). */
export async function connectShop(
  db: Db,
  projectId: ProjectId,
  input: { shop_domain: string; secret?: string | null } & ShopSettings,
  encryptionKey: string,
): Promise<ShopRow | undefined> {
  const given = SETTING_COLUMNS.filter((c) => input[c] !== undefined);
  const values = given.map((c) => input[c]);
  const { rows } = await db.pool.query<ShopRow>(
    `INSERT INTO shop_connections (id, project_id, shop_domain, secret_enc${given.map((c) => `, ${c}`).join("")})
     VALUES ($1, $2, $3, $4${given.map((_, i) => `, $${i + 5}`).join("")})
     ON CONFLICT (shop_domain) DO NOTHING RETURNING ${COLUMNS}`,
    [
      timeOrderedUuid(),
      projectId,
      input.shop_domain.toLowerCase(),
      input.secret ? encryptSecret(input.secret, encryptionKey) : null,
      ...values,
    ],
  );
  return rows[0];
}

export async function updateShop(
  db: Db,
  projectId: ProjectId,
  shopId: string,
  settings: ShopSettings,
): Promise<ShopRow | undefined> {
  const given = SETTING_COLUMNS.filter((c) => settings[c] !== undefined);
  if (!given.length) return findShop(db, projectId, shopId);
  const { rows } = await db.pool.query<ShopRow>(
    `UPDATE shop_connections SET ${given.map((c, i) => `${c} = $${i + 3}`).join(", ")}, updated_at = now()
     WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [projectId, shopId, ...given.map((c) => settings[c])],
  );
  return rows[0];
}

/** The new secret takes over now; the current one stays valid for `graceMinutes` (the platform switches slowly). */
export async function rotateShopSecret(
  db: Db,
  projectId: ProjectId,
  shopId: string,
  secret: string,
  graceMinutes: number,
  encryptionKey: string,
): Promise<ShopRow | undefined> {
  const { rows } = await db.pool.query<ShopRow>(
    `UPDATE shop_connections SET previous_secret_enc = secret_enc,
       previous_secret_expires_at = CASE WHEN secret_enc IS NULL THEN NULL ELSE now() + $4::int * interval '1 minute' END,
       secret_enc = $3, updated_at = now()
     WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [projectId, shopId, encryptSecret(secret, encryptionKey), graceMinutes],
  );
  return rows[0];
}

export async function deleteShop(db: Db, projectId: ProjectId, shopId: string): Promise<boolean> {
  const r = await db.pool.query("DELETE FROM shop_connections WHERE project_id = $1 AND id = $2", [
    projectId,
    shopId,
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** The secrets a delivery may be signed with now: the current one, and the previous one inside its grace. */
export function shopSecrets(shop: ShopRow, encryptionKey: string, now = new Date()): string[] {
  const out: string[] = [];
  if (shop.secret_enc) out.push(decryptSecret(shop.secret_enc, encryptionKey));
  if (shop.previous_secret_enc && shop.previous_secret_expires_at && shop.previous_secret_expires_at > now)
    out.push(decryptSecret(shop.previous_secret_enc, encryptionKey));
  return out;
}
