import type { ProjectId } from "@emailsvc/contracts";
import type { EmailContent } from "@emailsvc/content";
import { LRUCache } from "lru-cache";

/** Spec 8: "Template cache time 5 minutes". */
export const TEMPLATE_CACHE_TTL_MS = 5 * 60 * 1000;

export interface CachedTemplate extends EmailContent {
  id: string;
  internalId: number;
}

/** How a template is asked for: its UUID or its per-project internal id. */
export type TemplateRef = { id: string } | { internalId: number };

export interface TemplateCache {
  get(projectId: ProjectId, ref: TemplateRef): CachedTemplate | undefined;
  set(projectId: ProjectId, template: CachedTemplate): void;
  /** Drops a template (both of its keys) after an edit made through this process. */
  invalidate(projectId: ProjectId, templateId: string): void;
}

const keyOf = (projectId: ProjectId, ref: TemplateRef): string =>
  "id" in ref ? `${projectId}:id:${ref.id}` : `${projectId}:n:${ref.internalId}`;

/**
 * In-process LRU of template rows, keyed by project + template (UUID and internal id both point at one entry),
 * entries live 5 minutes. Per replica: an edit becomes visible to other replicas within the TTL. Misses are
 * not cached, so a template created a moment ago is found at once and a 404 never sticks.
 */
export function createTemplateCache(opts: { max?: number; ttlMs?: number } = {}): TemplateCache {
  const lru = new LRUCache<string, CachedTemplate>({
    max: opts.max ?? 2_000,
    ttl: opts.ttlMs ?? TEMPLATE_CACHE_TTL_MS,
  });
  return {
    get: (projectId, ref) => lru.get(keyOf(projectId, ref)),
    set(projectId, t) {
      lru.set(keyOf(projectId, { id: t.id }), t);
      lru.set(keyOf(projectId, { internalId: t.internalId }), t);
    },
    invalidate(projectId, templateId) {
      const t = lru.get(keyOf(projectId, { id: templateId }));
      lru.delete(keyOf(projectId, { id: templateId }));
      if (t) lru.delete(keyOf(projectId, { internalId: t.internalId }));
    },
  };
}
