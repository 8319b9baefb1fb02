import type { ProjectId } from "@emailsvc/contracts";
import { type Db, timeOrderedUuid } from "@emailsvc/db";

// The audit log (issue 45): appended by the admin API, never updated or deleted (a trigger refuses both).

export interface AuditInput {
  projectId: string | null;
  actorType: "user" | "token" | "anonymous";
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  route: string;
  status: number;
  ip: string | null;
  userAgent: string | null;
  detail?: Record<string, unknown> | null;
}

export async function appendAudit(db: Db, e: AuditInput): Promise<void> {
  await db.pool.query(
    `INSERT INTO audit_events (id, project_id, actor_type, actor_id, actor_email, action, route, status, ip, user_agent, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)`,
    [
      timeOrderedUuid(),
      e.projectId,
      e.actorType,
      e.actorId,
      e.actorEmail,
      e.action,
      e.route.slice(0, 300),
      e.status,
      e.ip,
      e.userAgent?.slice(0, 500) ?? null,
      e.detail ? JSON.stringify(e.detail) : null,
    ],
  );
}

export interface AuditRow {
  id: string;
  action: string;
  route: string;
  status: number;
  actor_type: string;
  actor_email: string | null;
  ip: string | null;
  user_agent: string | null;
  detail: unknown;
  created_at: Date;
}

/**
 * A project's events, newest first, keyset-paged by id (time-ordered): `before` is the last id of the previous
 * page. Filters: the action's prefix (`keys`, `campaigns`), the actor's email, a time range.
 */
export async function listAudit(
  db: Db,
  projectId: ProjectId,
  f: { action?: string; actor?: string; since?: Date; until?: Date; before?: string; limit: number },
): Promise<AuditRow[]> {
  const { rows } = await db.pool.query<AuditRow>(
    `SELECT id, action, route, status, actor_type, actor_email, ip, user_agent, detail, created_at
       FROM audit_events
      WHERE project_id = $1
        AND ($2::text IS NULL OR action = $2 OR action LIKE $2 || '.%')
        AND ($3::text IS NULL OR actor_email = lower($3))
        AND ($4::timestamptz IS NULL OR created_at >= $4)
        AND ($5::timestamptz IS NULL OR created_at <= $5)
        AND ($6::uuid IS NULL OR id < $6)
      ORDER BY id DESC LIMIT $7`,
    [
      projectId,
      f.action ?? null,
      f.actor ?? null,
      f.since ?? null,
      f.until ?? null,
      f.before ?? null,
      f.limit,
    ],
  );
  return rows;
}
