import type { Db } from "@emailsvc/db";

export interface WebhookDestinations {
  /** The URL an event of this project and mode goes to; null when the project has none for the mode. */
  urlFor(projectId: string, isTest: boolean): Promise<string | null>;
}

/**
 * Each project's two webhook URLs, kept in process for `ttlMs`. Most events belong to projects with no URL for
 * the send's mode (every test send of a project without `webhook_url_dev`), and such an event is delivered
 * nowhere: knowing that from memory spares it the two statements and the stored copy a delivery costs. A URL
 * set or changed through the admin API is used within `ttlMs`.
 */
export function createWebhookDestinations(db: Db, ttlMs: number): WebhookDestinations {
  const cache = new Map<string, { at: number; urls: Promise<{ live: string | null; dev: string | null }> }>();
  const load = async (projectId: string) => {
    const { rows } = await db.pool.query<{ webhook_url: string | null; webhook_url_dev: string | null }>(
      "SELECT webhook_url, webhook_url_dev FROM projects WHERE id = $1",
      [projectId],
    );
    return { live: rows[0]?.webhook_url || null, dev: rows[0]?.webhook_url_dev || null };
  };
  return {
    async urlFor(projectId, isTest) {
      let hit = cache.get(projectId);
      if (!hit || Date.now() - hit.at > ttlMs) {
        if (cache.size > 10_000) cache.clear();
        hit = { at: Date.now(), urls: load(projectId) };
        cache.set(projectId, hit);
        hit.urls.catch(() => cache.delete(projectId));
      }
      const urls = await hit.urls;
      return isTest ? urls.dev : urls.live;
    },
  };
}
