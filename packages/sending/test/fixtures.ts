// What the sending package's integration tests share. Real: the package run's own freshly migrated PostgreSQL
// (the jest preset's global-setup). Nothing is faked: projects, senders and suppressions are real rows, and the
// tests read back the rows a send wrote as the send-worker and the dashboard would.
import type { ProjectId } from "@emailsvc/contracts";
import { createDb, createProject, type Db, timeOrderedUuid } from "@emailsvc/db";
import { projectFactory, type TestProject } from "@emailsvc/testing";
import type { AcceptSendInput } from "../src";

export const ENCRYPTION_KEY = "cd".repeat(32);

export function openDb(): Db {
  return createDb(process.env.DATABASE_URL!, { max: 4 });
}

/** A project with its keys and (unless told otherwise) one verified sender address. */
export function makeProject(
  db: Db,
  opts: { verifiedSender?: boolean } = {},
): Promise<TestProject<ProjectId>> {
  return projectFactory<Db, ProjectId>({
    db,
    createProject,
    addVerifiedSender: (d, projectId, email) =>
      d.prisma.senderProfile.create({
        data: { projectId, senderEmail: email, senderName: "Shop", emailVerified: true, active: true },
      }),
    encryptionKey: ENCRYPTION_KEY,
  })(opts);
}

export async function suppress(db: Db, projectId: ProjectId, email: string, reason: string): Promise<void> {
  await db.prisma.suppression.create({ data: { projectId, email: email.toLowerCase(), reason } });
}

/** A v1-shaped send of `project` from its verified sender: live, counted, queued, with reply tokens. */
export function sendInput(
  project: TestProject<ProjectId>,
  over: Partial<AcceptSendInput> = {},
): AcceptSendInput {
  return {
    emailMessageId: timeOrderedUuid(),
    projectId: project.projectId,
    isTest: false,
    counted: true,
    source: "api",
    emailType: "transactional",
    fromEmail: project.sender,
    fromName: "Shop",
    subject: "Your order",
    html: "<p>Thanks</p>",
    text: null,
    cc: [],
    bcc: [],
    headers: null,
    attachments: [],
    templateId: null,
    campaignId: null,
    automationRunId: null,
    recipients: ["ada@example.com"],
    replyTokens: true,
    enqueue: true,
    ...over,
  };
}

export async function rows<T>(db: Db, sql: string, params: unknown[]): Promise<T[]> {
  return (await db.pool.query(sql, params)).rows as T[];
}

export interface OutboxRow {
  exchange: string;
  routing_key: string;
  payload: {
    type: string;
    projectId: string | null;
    correlationId: string;
    payload: { activityIds: string[] };
  };
}

/** The project's outbox rows in the order they were written (the relay publishes them as they are). */
export function outboxOf(db: Db, projectId: ProjectId): Promise<OutboxRow[]> {
  return rows<OutboxRow>(
    db,
    `SELECT exchange, routing_key, payload FROM outbox_messages
      WHERE payload->>'projectId' = $1 ORDER BY id`,
    [projectId],
  );
}

/** What the quota and the project's counter say: this month's live_sent (0 without a row) and total_sent. */
export async function usageOf(db: Db, projectId: ProjectId, period: string) {
  const [row] = await rows<{ live_sent: number; total_sent: number }>(
    db,
    `SELECT coalesce((SELECT live_sent FROM project_usage WHERE project_id = $1 AND period = $2), 0) AS live_sent,
            total_sent FROM projects WHERE id = $1`,
    [projectId, period],
  );
  return { liveSent: row!.live_sent, totalSent: Number(row!.total_sent) };
}

export async function countOf(db: Db, table: string, projectId: ProjectId): Promise<number> {
  const [row] = await rows<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`,
    [projectId],
  );
  return row!.n;
}
