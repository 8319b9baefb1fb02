import type { ProjectId } from "@emailsvc/contracts";
import { connOf, type Db, type DbOrClient, timeOrderedUuid } from "@emailsvc/db";

// The dashboard's accounts (issue 45): users, their roles per project, and their sessions. Only public-api reads
// or writes these tables, so their SQL lives here (docs/architecture.md, "SQL").

export type Role = "owner" | "admin" | "member" | "viewer";
export const ROLES: readonly Role[] = ["owner", "admin", "member", "viewer"];

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string;
  platformOwner: boolean;
  disabled: boolean;
}

const USER_COLS = "id, email, name, password_hash, platform_owner, disabled_at IS NOT NULL AS disabled";
type UserSql = {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  platform_owner: boolean;
  disabled: boolean;
};
const toUser = (r: UserSql): UserRow => ({
  id: r.id,
  email: r.email,
  name: r.name,
  passwordHash: r.password_hash,
  platformOwner: r.platform_owner,
  disabled: r.disabled,
});

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const { rows } = await db.pool.query<UserSql>(`SELECT ${USER_COLS} FROM users WHERE email = $1`, [
    email.trim().toLowerCase(),
  ]);
  return rows[0] ? toUser(rows[0]) : null;
}

/** A new user, or null when the email is taken. */
export async function insertUser(
  db: DbOrClient,
  u: { email: string; name: string | null; passwordHash: string; platformOwner: boolean },
): Promise<UserRow | null> {
  const { rows } = await connOf(db).query<UserSql>(
    `INSERT INTO users (id, email, name, password_hash, platform_owner) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (email) DO NOTHING RETURNING ${USER_COLS}`,
    [timeOrderedUuid(), u.email.trim().toLowerCase(), u.name, u.passwordHash, u.platformOwner],
  );
  return rows[0] ? toUser(rows[0]) : null;
}

export async function setPassword(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.pool.query("UPDATE users SET password_hash = $2 WHERE id = $1", [userId, passwordHash]);
}

export interface Membership {
  projectId: ProjectId;
  projectName: string;
  role: Role;
}

export async function membershipsOf(db: Db, userId: string): Promise<Membership[]> {
  const { rows } = await db.pool.query<{ project_id: ProjectId; name: string; role: Role }>(
    `SELECT m.project_id, p.name, m.role FROM project_members m JOIN projects p ON p.id = m.project_id
      WHERE m.user_id = $1 ORDER BY p.created_at, p.id`,
    [userId],
  );
  return rows.map((r) => ({ projectId: r.project_id, projectName: r.name, role: r.role }));
}

export async function roleIn(db: Db, projectId: string, userId: string): Promise<Role | null> {
  const { rows } = await db.pool.query<{ role: Role }>(
    "SELECT role FROM project_members WHERE project_id = $1::uuid AND user_id = $2",
    [projectId, userId],
  );
  return rows[0]?.role ?? null;
}

export interface MemberRow {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  since: Date;
}

export async function listMembers(db: Db, projectId: ProjectId): Promise<MemberRow[]> {
  const { rows } = await db.pool.query<{
    user_id: string;
    email: string;
    name: string | null;
    role: Role;
    created_at: Date;
  }>(
    `SELECT m.user_id, u.email, u.name, m.role, m.created_at FROM project_members m JOIN users u ON u.id = m.user_id
      WHERE m.project_id = $1 ORDER BY m.created_at, u.email`,
    [projectId],
  );
  return rows.map((r) => ({
    userId: r.user_id,
    email: r.email,
    name: r.name,
    role: r.role,
    since: r.created_at,
  }));
}

/** Adds the user to the project, or changes their role. */
export async function putMember(db: Db, projectId: ProjectId, userId: string, role: Role): Promise<void> {
  await db.pool.query(
    `INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [projectId, userId, role],
  );
}

/** Removes a member; false when the user was not one. */
export async function removeMember(db: Db, projectId: ProjectId, userId: string): Promise<boolean> {
  const r = await db.pool.query("DELETE FROM project_members WHERE project_id = $1 AND user_id = $2", [
    projectId,
    userId,
  ]);
  return (r.rowCount ?? 0) > 0;
}

export async function ownerCount(db: Db, projectId: ProjectId): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM project_members WHERE project_id = $1 AND role = 'owner'",
    [projectId],
  );
  return rows[0]!.n;
}

// --- sessions --------------------------------------------------------------------------------------------------

export interface SessionRow {
  userId: string;
  csrfToken: string;
  lastSeenAt: Date;
  expiresAt: Date;
}

export async function insertSession(
  db: Db,
  s: {
    id: string;
    userId: string;
    csrfToken: string;
    expiresAt: Date;
    ip: string | null;
    userAgent: string | null;
  },
): Promise<void> {
  await db.pool.query(
    `INSERT INTO sessions (id, user_id, csrf_token, expires_at, ip, user_agent) VALUES ($1, $2, $3, $4, $5, $6)`,
    [s.id, s.userId, s.csrfToken, s.expiresAt, s.ip, s.userAgent?.slice(0, 500) ?? null],
  );
}

/**
 * The live session with this id, its idle clock restarted (at most once a minute: a page's burst of requests
 * writes once); null when missing, past its absolute expiry, or idle longer than `idleMs` (then deleted).
 */
export async function touchSession(
  db: Db,
  id: string,
  idleMs: number,
): Promise<(SessionRow & { user: UserRow }) | null> {
  const { rows } = await db.pool.query<
    UserSql & { user_id: string; csrf_token: string; last_seen_at: Date; expires_at: Date }
  >(
    `WITH s AS (
       SELECT * FROM sessions WHERE id = $1 AND expires_at > now() AND last_seen_at > now() - $2 * interval '1 millisecond'
     ), t AS (
       UPDATE sessions SET last_seen_at = now() WHERE id = $1 AND last_seen_at < now() - interval '1 minute'
          AND EXISTS (SELECT 1 FROM s)
     )
     SELECT s.user_id, s.csrf_token, s.last_seen_at, s.expires_at, u.id, u.email, u.name, u.password_hash,
            u.platform_owner, u.disabled_at IS NOT NULL AS disabled
       FROM s JOIN users u ON u.id = s.user_id`,
    [id, idleMs],
  );
  const r = rows[0];
  if (!r) {
    await db.pool.query("DELETE FROM sessions WHERE id = $1", [id]);
    return null;
  }
  return {
    userId: r.user_id,
    csrfToken: r.csrf_token,
    lastSeenAt: r.last_seen_at,
    expiresAt: r.expires_at,
    user: toUser(r),
  };
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.pool.query("DELETE FROM sessions WHERE id = $1", [id]);
}

/** Signs the user out everywhere: every session of theirs ends. */
export async function deleteSessionsOf(db: Db, userId: string): Promise<number> {
  const r = await db.pool.query("DELETE FROM sessions WHERE user_id = $1", [userId]);
  return r.rowCount ?? 0;
}
