// insertBatch's one statement against real PostgreSQL (the preset's migrated DB); nothing else is started.
import { randomUUID } from "node:crypto";
import { projectIdOf, type ProjectId } from "@emailsvc/contracts";
import { createDb, type Db, timeOrderedUuid } from "@emailsvc/db";
import { insertBatch, type NewBatch } from "@emailsvc/sending";

let db: Db;
let projectId: ProjectId;

beforeAll(async () => {
  db = createDb(process.env.DATABASE_URL!);
  projectId = projectIdOf(randomUUID());
  await db.pool.query("INSERT INTO projects (id, name, updated_at) VALUES ($1, 'batch repo test', now())", [
    projectId,
  ]);
});
afterAll(async () => {
  await db?.close();
});

const batch = (n: number): NewBatch & { batchId: string } => {
  const ids = Array.from({ length: n }, () => timeOrderedUuid());
  return {
    projectId,
    batchId: randomUUID(),
    emailMessageId: randomUUID(),
    isTest: true,
    emailType: "marketing",
    fromEmail: "a@example.org",
    fromName: null,
    subject: "s",
    html: "h",
    text: null,
    templateId: null,
    total: n,
    schedule: null,
    activityIds: ids,
    emails: ids.map((_, i) => `r${i}@example.org`),
    data: ids.map((_, i) => ({ i })),
    lane: "transactional",
    counted: false,
    idempotency: null,
  };
};

const tokensOf = async (batchId: string) =>
  (
    await db.pool.query<{ id: string; reply_token: string; owner: string | null }>(
      `SELECT a.id, a.reply_token, t.activity_id AS owner FROM activities a
         LEFT JOIN reply_tokens t ON t.token = a.reply_token WHERE a.batch_id = $1`,
      [batchId],
    )
  ).rows;

test("a reply token that is already taken is drawn again, and the batch is stored once", async () => {
  const b = batch(50);
  const planted: string[] = [];
  // The statement's tokens are drawn inside insertBatch: take one of them just before its first run.
  const racing = {
    pool: {
      query: async (text: string, values: unknown[]) => {
        if (planted.length === 0 && text.includes("INSERT INTO activities")) {
          const tokens = values.find((v) => typeof v === "string" && /^[a-z0-9]{8}(,[a-z0-9]{8})+$/.test(v));
          const token = String(tokens).split(",")[7]!;
          planted.push(token);
          await db.pool.query(
            "INSERT INTO reply_tokens (token, project_id, activity_id) VALUES ($1, $2, $3)",
            [token, projectId, randomUUID()],
          );
        }
        return db.pool.query(text, values);
      },
    },
  } as unknown as Db;

  expect(await insertBatch(racing, b)).toBe("inserted");
  expect(planted).toHaveLength(1);
  const rows = await tokensOf(b.batchId);
  expect(rows).toHaveLength(50);
  expect(rows.map((r) => r.reply_token)).not.toContain(planted[0]);
  for (const r of rows) expect(r.owner).toBe(r.id);
  expect((await db.pool.query("SELECT 1 FROM batches WHERE id = $1", [b.batchId])).rowCount).toBe(1);
});

test("an empty batch stores the batch and its message only", async () => {
  const b = batch(0);
  expect(await insertBatch(db, b)).toBe("inserted");
  expect((await db.pool.query("SELECT 1 FROM batches WHERE id = $1", [b.batchId])).rowCount).toBe(1);
  expect(
    (await db.pool.query("SELECT 1 FROM email_messages WHERE id = $1", [b.emailMessageId])).rowCount,
  ).toBe(1);
  expect(await tokensOf(b.batchId)).toHaveLength(0);
});
