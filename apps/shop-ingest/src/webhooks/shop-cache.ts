import type { ProjectId } from "@emailsvc/contracts";
import {
  connectShopFromDelivery,
  decryptSecret,
  type Db,
  findShopByDomain,
  findShopProjectPolicy,
  type ShopProjectPolicy,
  type ShopRow,
} from "@emailsvc/db";

export interface CachedShop {
  shop: ShopRow;
  /** the secrets a delivery may be signed with now, decrypted */
  secrets: string[];
}

/** What the receiver reads for every delivery: the shop of its domain and the project of its x-project-id. */
export interface ShopLookups {
  shop(domain: string): Promise<CachedShop | null>;
  /** null: no such project */
  project(projectId: string): Promise<ShopProjectPolicy | null>;
  /**
   * Connects a domain no project has to `projectId`, without a secret, and answers the domain's connection as it
   * is then: this one, or the one a concurrent delivery (another replica's, perhaps to another project) made first.
   */
  connect(projectId: ProjectId, domain: string): Promise<CachedShop | null>;
}

interface Entry {
  at: number;
  shop: ShopRow | null;
  current: string | null;
  previous: string | null;
}

/** Entries kept per map; past it the map is emptied (a flood of made-up domains or project ids cannot grow it). */
const MAX_ENTRIES = 10_000;

/**
 * Shop connections by domain with their secrets decrypted, and projects by id, held `ttlMs` (a busy shop sends
 * hundreds of webhooks a second, each needing both). A rotated secret or a changed setting takes effect within
 * `ttlMs`; the end of a previous secret's grace is checked on every read. Misses are held too, so made-up domains
 * or project ids cost one query each per `ttlMs`. 0 turns the cache off.
 */
export function createShopCache(db: Db, encryptionKey: string, ttlMs: number): ShopLookups {
  const entries = new Map<string, Entry>();
  const projects = new Map<string, { at: number; policy: ShopProjectPolicy | null }>();
  const view = (e: Entry): CachedShop | null => {
    if (!e.shop) return null;
    const until = e.shop.previous_secret_expires_at;
    const secrets = [e.current, until && until > new Date() ? e.previous : null].filter(
      (s): s is string => !!s,
    );
    return { shop: e.shop, secrets };
  };
  const remember = (domain: string, shop: ShopRow | null): Entry => {
    const entry: Entry = {
      at: Date.now(),
      shop,
      current: shop?.secret_enc ? decryptSecret(shop.secret_enc, encryptionKey) : null,
      previous: shop?.previous_secret_enc ? decryptSecret(shop.previous_secret_enc, encryptionKey) : null,
    };
    if (ttlMs > 0) {
      if (entries.size > MAX_ENTRIES) entries.clear();
      entries.set(domain, entry);
    }
    return entry;
  };
  const shop = async (domain: string): Promise<CachedShop | null> => {
    const hit = entries.get(domain);
    if (hit && Date.now() - hit.at < ttlMs) return view(hit);
    return view(remember(domain, (await findShopByDomain(db, domain)) ?? null));
  };
  return {
    shop,
    async project(projectId) {
      const hit = projects.get(projectId);
      if (hit && Date.now() - hit.at < ttlMs) return hit.policy;
      const policy = (await findShopProjectPolicy(db, projectId)) ?? null;
      if (ttlMs > 0) {
        if (projects.size > MAX_ENTRIES) projects.clear();
        projects.set(projectId, { at: Date.now(), policy });
      }
      return policy;
    },
    async connect(projectId, domain) {
      const created = await connectShopFromDelivery(db, projectId, domain);
      if (created) return view(remember(domain, created));
      entries.delete(domain);
      return shop(domain);
    },
  };
}
