// Resumable and concurrent imports. Real: PostgreSQL, RabbitMQ (the package's vhost), s3rver; the scheduler
// killed with SIGKILL is the real service (src/main.ts) in a child process, which receives the job through the
// outbox and its queue or finds it with its sweep. A database restart is what PostgreSQL does to the processor's
// session when it shuts down: pg_terminate_backend sends the same 57P01.
import type { ChildProcess } from "node:child_process";
import { spawnTs } from "@emailsvc/testing";
import path from "node:path";
import { createLogger } from "@emailsvc/observability";
import { startImportRunner } from "../src/imports/import-runner";
import { processImportJob } from "../src/imports/process-import-job";
import {
  contactsCsv,
  jobRow,
  newProject,
  processDeps,
  rejected,
  runJob,
  stageJob,
  startImportHarness,
  type ImportHarness,
} from "./imports-harness";

jest.setTimeout(180_000);
let h: ImportHarness;
beforeAll(async () => {
  h = await startImportHarness();
});
afterAll(() => h?.close());

const leadCount = async (projectId: string) =>
  Number(
    (await h.db.pool.query("SELECT count(*) FROM leads WHERE project_id = $1", [projectId])).rows[0].count,
  );

async function waitUntil<T>(check: () => Promise<T | false>, timeoutMs = 60_000, every = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== false) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, every));
  }
}

/**
 * 40,000 rows: every 97th is invalid, every 89th repeats the email of the row 50 before it. What a correct
 * import ends with is computed here, row by row, the way the file is written.
 */
function mixedFile() {
  const lines = ["Email Address,First Name,Last Name,Plan"];
  const emails = new Set<string>();
  let invalid = 0;
  let duplicate = 0;
  for (let i = 0; i < 40_000; i++) {
    let email = `person${i}@example${i % 40}.org`;
    if (i % 97 === 13) {
      lines.push(`broken-${i},X,Y,free`);
      invalid++;
      continue;
    }
    if (i % 89 === 7 && i >= 50) email = `person${i - 50}@example${(i - 50) % 40}.org`;
    if (emails.has(email)) duplicate++;
    emails.add(email);
    lines.push(`${email},First${i},Last${i},${i % 2 ? "pro" : "free"}`);
  }
  return {
    file: Buffer.from(lines.join("\r\n") + "\r\n"),
    valid: emails.size,
    invalid,
    duplicate,
    total: 40_000,
  };
}

function startScheduler(port: number): ChildProcess {
  // node itself with tsx as a loader: the tsx CLI would run the service in a grandchild that SIGKILL misses.
  return spawnTs(path.join(__dirname, "../src/main.ts"), {
    env: {
      ...process.env,
      NODE_ENV: "test",
      LOG_LEVEL: "warn",
      PORT: String(port),
      HOST: "127.0.0.1",
      S3_ENDPOINT: h.s3.endpoint,
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      IMPORTS_BUCKET: "imports",
      IMPORT_CHUNK_ROWS: "200",
      IMPORT_SWEEP_INTERVAL_MS: "500",
      SCHEDULER_INTERVAL_MS: "600000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function kill(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await exited;
}

it("a scheduler SIGKILLed mid-file (twice): the next one finishes, every valid row imported exactly once", async () => {
  const expected = mixedFile();
  const projectId = await newProject(h.db);
  const job = await stageJob(h, projectId, expected.file);
  const children: ChildProcess[] = [];
  try {
    for (const [i, share] of [0.2, 0.55].entries()) {
      const child = startScheduler(43_100 + i);
      children.push(child);
      const at = await waitUntil(async () => {
        const j = await jobRow(h.db, job.id);
        return Number(j.processed_rows) >= expected.total * share ? Number(j.processed_rows) : false;
      });
      await kill(child, "SIGKILL");
      const after = await jobRow(h.db, job.id);
      // Killed mid-file: still processing, and the checkpoint covers exactly the rows of its committed chunks.
      expect(after.status).toBe("processing");
      expect(Number(after.processed_rows)).toBeGreaterThanOrEqual(at);
      expect(Number(after.processed_rows)).toBeLessThan(expected.total);
      expect(Number(after.created_count) + Number(after.duplicate_count) + Number(after.invalid_count)).toBe(
        Number(after.processed_rows),
      );
      expect(await leadCount(projectId)).toBe(Number(after.created_count));
    }
    const last = startScheduler(43_102);
    children.push(last);
    await waitUntil(async () => (await jobRow(h.db, job.id)).status === "completed", 120_000, 100);
  } finally {
    for (const c of children) await kill(c, "SIGTERM");
  }
  const done = await jobRow(h.db, job.id);
  expect({
    total: done.total_rows,
    processed: done.processed_rows,
    created: done.created_count,
    updated: done.updated_count,
    duplicate: done.duplicate_count,
    invalid: done.invalid_count,
    attempts: done.attempts,
  }).toEqual({
    total: expected.total,
    processed: expected.total,
    created: expected.valid,
    updated: 0,
    duplicate: expected.duplicate,
    invalid: expected.invalid,
    attempts: 3,
  });
  expect(await leadCount(projectId)).toBe(expected.valid);
  expect((await rejected(h.db, job.id)).length).toBe(expected.duplicate + expected.invalid);
});

it("the database ending the processor's session mid-file (as a restart does): resumed from the checkpoint, exactly once", async () => {
  const expected = mixedFile();
  const projectId = await newProject(h.db);
  const job = await stageJob(h, projectId, expected.file);
  const logger = createLogger({ service: "t", level: (process.env.TEST_LOG_LEVEL ?? "silent") as "silent" });
  const results: string[] = [];
  const runner = startImportRunner({
    concurrency: 1,
    sweepIntervalMs: 300,
    logger,
    triggered: async () => [job.id],
    run: async (id, signal, onClaimed) => {
      const r = await processImportJob(processDeps(h, 200), id, signal, onClaimed);
      results.push(r);
      return r;
    },
  });
  try {
    await waitUntil(async () => Number((await jobRow(h.db, job.id)).processed_rows) >= 10_000);
    const killed = await h.db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND classid = 250001
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(killed.rowCount).toBe(1);
    await waitUntil(async () => (await jobRow(h.db, job.id)).status === "completed");
  } finally {
    await runner.stop();
  }
  expect(results[0]).toBe("retry");
  const done = await jobRow(h.db, job.id);
  expect(done).toMatchObject({
    processed_rows: expected.total,
    created_count: expected.valid,
    updated_count: 0,
    duplicate_count: expected.duplicate,
    invalid_count: expected.invalid,
  });
  expect(await leadCount(projectId)).toBe(expected.valid);
});

it("several jobs at once, in one project (overlapping people) and in another, do not interfere", async () => {
  const a = await newProject(h.db);
  const b = await newProject(h.db);
  const one = await stageJob(h, a, contactsCsv(12_000, "p", 0));
  const two = await stageJob(h, a, contactsCsv(12_000, "p", 6_000)); // rows 6,000 to 11,999 are in both
  const three = await stageJob(h, b, contactsCsv(12_000, "p", 0)); // the same people, another project
  const results = await Promise.all([one, two, three].map((j) => runJob(h, j.id, 500)));
  expect(results).toEqual(["completed", "completed", "completed"]);
  const [j1, j2, j3] = await Promise.all([one, two, three].map((j) => jobRow(h.db, j.id)));
  // Each shared person is created by one job and updated by the other.
  expect(Number(j1!.created_count) + Number(j2!.created_count)).toBe(18_000);
  expect(Number(j1!.updated_count) + Number(j2!.updated_count)).toBe(6_000);
  expect(j3).toMatchObject({ created_count: 12_000, updated_count: 0 });
  expect(await leadCount(a)).toBe(18_000);
  expect(await leadCount(b)).toBe(12_000);
});

it("a second processor of the same job finds it locked and leaves it", async () => {
  const projectId = await newProject(h.db);
  const job = await stageJob(h, projectId, contactsCsv(20_000));
  const first = runJob(h, job.id, 200);
  await waitUntil(async () => Number((await jobRow(h.db, job.id)).processed_rows) > 0);
  expect(await runJob(h, job.id)).toBe("busy");
  expect(await first).toBe("completed");
  expect(await runJob(h, job.id)).toBe("gone");
  expect(await leadCount(projectId)).toBe(20_000);
});
