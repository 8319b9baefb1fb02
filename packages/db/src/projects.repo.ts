import { isUuid, type ProjectId } from "@emailsvc/contracts";
import { connOf, type Db, type DbOrClient } from "./create-db";

// The projects aggregate as the services read it: whether a project exists, what it owns, and its settings.
// The admin API's writes of a project (create, settings, keys) stay on Prisma (api-keys.ts, the admin routes).

/**
 * The project `id` names, as a ProjectId (the row's own id), or undefined when there is none: a URL's or a
 * header's id becomes a tenant only once the project is found. A malformed id is no project.
 */
export async function findProjectId(db: Db, id: string): Promise<ProjectId | undefined> {
  if (!isUuid(id)) return undefined;
  return (await db.pool.query<{ id: ProjectId }>("SELECT id FROM projects WHERE id = $1", [id])).rows[0]?.id;
}

/**
 * Domain-service's ownership rule, for a sender address added as verified without the provider (the admin API's
 * local senders): true when another project has the address as a verified sender or an email identity, or has
 * registered its domain; that project's sender must not become usable by this one.
 */
export async function senderOwnedByAnotherProject(
  db: Db,
  projectId: ProjectId,
  email: string,
): Promise<boolean> {
  const { rowCount } = await db.pool.query(
    `SELECT 1 FROM sender_profiles WHERE sender_email = $1 AND project_id <> $2 AND email_verified
     UNION ALL SELECT 1 FROM email_identities WHERE sender_email = $1 AND project_id <> $2
     UNION ALL SELECT 1 FROM domain_identities
                WHERE domain = split_part($1, '@', 2) AND project_id <> $2 AND deleted_at IS NULL
     LIMIT 1`,
    [email, projectId],
  );
  return !!rowCount;
}

/** Whether the template `templateId` (a UUID) is the project's own. */
export async function projectOwnsTemplate(
  db: Db,
  projectId: ProjectId,
  templateId: string,
): Promise<boolean> {
  if (!isUuid(templateId)) return false;
  const { rowCount } = await db.pool.query("SELECT 1 FROM templates WHERE project_id = $1 AND id = $2", [
    projectId,
    templateId,
  ]);
  return !!rowCount;
}

/** The project's default_timezone (scheduled sends without a `timezone`), or null when unset. */
export async function projectDefaultTimezone(db: Db, projectId: ProjectId): Promise<string | null> {
  const { rows } = await db.pool.query<{ default_timezone: string | null }>(
    "SELECT default_timezone FROM projects WHERE id = $1",
    [projectId],
  );
  return rows[0]?.default_timezone ?? null;
}

/** The project's postal address (the bulk footer's), or null when it has none. */
export async function projectPostalAddress(q: DbOrClient, projectId: ProjectId): Promise<string | null> {
  const { rows } = await connOf(q).query<{ postal_address: string | null }>(
    `SELECT postal_address FROM projects WHERE id = $1`,
    [projectId],
  );
  return rows[0]?.postal_address?.trim() || null;
}

/** The project's two pairs of webhook URLs: email events (live, test) and inbound replies (live, test). */
export interface ProjectWebhookUrls {
  webhook_url: string | null;
  webhook_url_dev: string | null;
  inbound_webhook_url: string | null;
  inbound_webhook_url_dev: string | null;
}

/** The project's webhook URLs as set now; undefined when there is no such project. */
export async function projectWebhookUrls(
  db: Db,
  projectId: ProjectId,
): Promise<ProjectWebhookUrls | undefined> {
  const { rows } = await db.pool.query<ProjectWebhookUrls>(
    "SELECT webhook_url, webhook_url_dev, inbound_webhook_url, inbound_webhook_url_dev FROM projects WHERE id = $1",
    [projectId],
  );
  return rows[0];
}

/** The column that says since when one of the project's webhook receivers has been failing. */
export type ReceiverFailingColumn =
  | "webhook_failing_since"
  | "webhook_dev_failing_since"
  | "inbound_webhook_failing_since"
  | "inbound_webhook_dev_failing_since";

/**
 * Marks the receiver failing (since now) or recovered. True only when this call changed the column: with several
 * replicas each finds out on its own, and only the first one to write it should say so.
 */
export async function setReceiverFailing(
  db: Db,
  projectId: ProjectId,
  column: ReceiverFailingColumn,
  failing: boolean,
): Promise<boolean> {
  const sql = failing
    ? `UPDATE projects SET ${column} = now() WHERE id = $1 AND ${column} IS NULL RETURNING id`
    : `UPDATE projects SET ${column} = NULL WHERE id = $1 AND ${column} IS NOT NULL RETURNING id`;
  return !!(await db.pool.query(sql, [projectId])).rowCount;
}
