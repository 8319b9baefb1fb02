import { decryptSecret, type Db, findShopByDomain, type ShopRow } from "@emailsvc/db";

export interface CachedShop {
  shop: ShopRow;
  /** the secrets a delivery may be signed with now, decrypted */
  secrets: string[];
}

interface Entry {
  at: number;
  shop: ShopRow | null;
  current: string | null;
  previous: string | null;
}

/**
 * Shop connections by domain with their secrets decrypted, held `ttlMs` (a busy shop sends hundreds of webhooks a
 * second, each needing its connection). A rotated secret or a changed setting takes effect within `ttlMs`; the end
 * of a previous secret's grace is checked on every read. 0 turns the cache off.
 */
export function createShopCache(db: Db, encryptionKey: string, ttlMs: number) {
  const entries = new Map<string, Entry>();
  const view = (e: Entry): CachedShop | null => {
    if (!e.shop) return null;
    const until = e.shop.previous_secret_expires_at;
    const secrets = [e.current, until && until > new Date() ? e.previous : null].filter(
      (s): s is string => !!s,
    );
    return { shop: e.shop, secrets };
  };
  return async (domain: string): Promise<CachedShop | null> => {
    const now = Date.now();
    const hit = entries.get(domain);
    if (hit && now - hit.at < ttlMs) return view(hit);
    const shop = (await findShopByDomain(db, domain)) ?? null;
    const entry: Entry = {
      at: now,
      shop,
      current: shop?.secret_enc ? decryptSecret(shop.secret_enc, encryptionKey) : null,
      previous: shop?.previous_secret_enc ? decryptSecret(shop.previous_secret_enc, encryptionKey) : null,
    };
    if (ttlMs > 0) {
      if (entries.size > 10_000) entries.clear();
      entries.set(domain, entry);
    }
    return view(entry);
  };
}
