import { normalizeLeadEmail, type ProjectId } from "@emailsvc/contracts";
import { connOf, type DbOrClient } from "./create-db";

/**
 * A recipient unsubscribed through the link of a bulk email (RFC 8058 one-click POST, or the page's form): the
 * address is suppressed with reason `unsubscribed` (every later send skips it, spec 1.7; the suppression names the
 * send, which is how a campaign counts its unsubscribes), and the project's lead with that address is marked
 * unsubscribed, so no later campaign takes it into its audience. One statement.
 */
export async function recordUnsubscribe(
  q: DbOrClient,
  projectId: ProjectId,
  activityId: string,
  recipient: string,
): Promise<void> {
  await connOf(q).query(
    `WITH s AS (
       INSERT INTO suppressions (id, project_id, email, reason, source_activity_id)
       VALUES (gen_random_uuid(), $1, lower($2), 'unsubscribed', $3) ON CONFLICT (project_id, email) DO NOTHING
     ), l AS (
       UPDATE leads SET subscription = 'unsubscribed', subscription_changed_at = now(),
              subscription_source = 'unsubscribe_link', updated_at = now()
        WHERE project_id = $1 AND email_normalized = $4 AND subscription <> 'unsubscribed'
     )
     SELECT 1`,
    [projectId, recipient, activityId, normalizeLeadEmail(recipient)],
  );
}

/**
 * The send an unsubscribe link names (its id is signed into the link, so the link itself is the tenant), with
 * whether its recipient is suppressed already; null for an unknown or project-less send.
 */
export async function findUnsubscribeTarget(
  q: DbOrClient,
  activityId: string,
): Promise<{ recipient: string; project_id: ProjectId; suppressed: boolean } | null> {
  const r = await connOf(q).query<{ recipient: string; project_id: ProjectId; suppressed: boolean }>(
    `SELECT a.recipient, a.project_id,
            EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = a.project_id AND s.email = lower(a.recipient)) AS suppressed
       FROM activities a WHERE a.id = $1 AND a.project_id IS NOT NULL`,
    [activityId],
  );
  return r.rows[0] ?? null;
}
