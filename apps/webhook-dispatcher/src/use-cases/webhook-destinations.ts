import type { ProjectId } from "@emailsvc/contracts";
import { type Db, projectWebhookUrls } from "@emailsvc/db";

export interface WebhookDestinations {
  /**
   * The URL an event of this project and mode goes to; null when the project has none for the mode. `inbound`:
   * the reply URLs (inbound_webhook_url, inbound_webhook_url_dev) instead of the event URLs.
   */
  urlFor(projectId: ProjectId, isTest: boolean, kind?: "outbound" | "inbound"): Promise<string | null>;
}

/**
 * Each project's two webhook URLs, kept in process for `ttlMs`. Most events belong to projects with no URL for
 * the send's mode (every test send of a project without `webhook_url_dev`), and such an event is delivered
 * nowhere: knowing that from memory spares it the two statements and the stored copy a delivery costs. A URL
 * set or changed through the admin API is used within `ttlMs`.
 */
export function createWebhookDestinations(db: Db, ttlMs: number): WebhookDestinations {
  type Urls = { live: string | null; dev: string | null; inLive: string | null; inDev: string | null };
  const cache = new Map<string, { at: number; urls: Promise<Urls> }>();
  const load = async (projectId: ProjectId): Promise<Urls> => {
    const r = await projectWebhookUrls(db, projectId);
    return {
      live: r?.webhook_url || null,
      dev: r?.webhook_url_dev || null,
      inLive: r?.inbound_webhook_url || null,
      inDev: r?.inbound_webhook_url_dev || null,
    };
  };
  return {
    async urlFor(projectId, isTest, kind = "outbound") {
      let hit = cache.get(projectId);
      if (!hit || Date.now() - hit.at > ttlMs) {
        if (cache.size > 10_000) cache.clear();
        hit = { at: Date.now(), urls: load(projectId) };
        cache.set(projectId, hit);
        hit.urls.catch(() => cache.delete(projectId));
      }
      const urls = await hit.urls;
      if (kind === "inbound") return isTest ? urls.inDev : urls.inLive;
      return isTest ? urls.dev : urls.live;
    },
  };
}
