import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import type { CachedTemplate, TemplateCache, TemplateRef } from "./template-cache";

export interface LoadedTemplate {
  template: CachedTemplate;
  /** The row came from the 5-minute cache (the spec's `used_cached_html`). */
  fromCache: boolean;
}

/** `templates.internal_id` is an int4: a larger id names no template (and would fail the query). */
const MAX_INTERNAL_ID = 2_147_483_647;

/** A template of this project by UUID or internal id, through the cache; null when the project has none such. */
export async function loadTemplate(
  deps: { db: Pick<Db, "pool">; templateCache: TemplateCache },
  projectId: ProjectId,
  ref: TemplateRef,
): Promise<LoadedTemplate | null> {
  const cached = deps.templateCache.get(projectId, ref);
  if (cached) return { template: cached, fromCache: true };
  const byId = "id" in ref;
  if (!byId && ref.internalId > MAX_INTERNAL_ID) return null;
  const { rows } = await deps.db.pool.query<{
    id: string;
    internal_id: number;
    subject: string;
    html: string;
    text: string | null;
  }>(
    `SELECT id, internal_id, subject, html, text FROM templates WHERE project_id = $1 AND ${byId ? "id = $2::uuid" : "internal_id = $2"}`,
    [projectId, byId ? ref.id : ref.internalId],
  );
  const row = rows[0];
  if (!row) return null;
  const template: CachedTemplate = {
    id: row.id,
    internalId: row.internal_id,
    subject: row.subject,
    html: row.html,
    text: row.text,
  };
  deps.templateCache.set(projectId, template);
  return { template, fromCache: false };
}
