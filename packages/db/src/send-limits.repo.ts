import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "./create-db";

/** A project's own send limits (issue 49); null: the deployment's default. */
export interface ProjectSendLimits {
  /** requests a minute per API key on /v1/send-* and /domains* */
  sendRateLimit: number | null;
  /** emails a UTC day, test sends included; 0: no cap */
  dailySendCap: number | null;
}

/** The project's send-limit overrides; null when there is no such project. */
export async function projectSendLimits(db: Db, projectId: ProjectId): Promise<ProjectSendLimits | null> {
  const { rows } = await db.pool.query<{ send_rate_limit: number | null; daily_send_cap: number | null }>(
    "SELECT send_rate_limit, daily_send_cap FROM projects WHERE id = $1",
    [projectId],
  );
  const r = rows[0];
  return r ? { sendRateLimit: r.send_rate_limit, dailySendCap: r.daily_send_cap } : null;
}

/**
 * Whether the project's test keys see only test data (issue 49): its threads, replies and scheduled sends of test
 * sends. Off by default: spec 5 lets a key of either mode read the project's conversations.
 */
export async function testKeysScoped(db: Db, projectId: ProjectId): Promise<boolean> {
  const { rows } = await db.pool.query<{ scoped: boolean }>(
    "SELECT test_keys_test_data_only AS scoped FROM projects WHERE id = $1",
    [projectId],
  );
  return rows[0]?.scoped ?? false;
}
