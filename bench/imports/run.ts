/**
 * bench/imports (issue 25). Against a running stack (`pnpm start`; STACK_PORT_OFFSET / STACK_STATE_DIR /
 * DATABASE_URL for a stack beside another one):
 *   1. A 1,000,000-row CSV (email, first and last name, 3 attributes, a tags column) uploaded through the admin API
 *      and imported by the scheduler: rows/s of the processing (trigger → completed) and end to end (upload start →
 *      completed), next to a raw COPY of the same rows into a table of the same shape as leads (same indexes) in
 *      the same run. Goal ≥ 20,000 rows/s and ≥ 40% of raw. The scheduler's RSS growth (its /metrics, sampled
 *      every 250 ms) and CPU ms (from /proc) during the import: goal < 150 MB.
 *   2. A 100,000-row XLSX (written with exceljs's streaming writer) the same way. Goal ≥ 5,000 rows/s.
 * Run: pnpm --filter @emailsvc/bench imports [--rows 1000000] [--xlsx-rows 100000] [--only csv|xlsx]
 * The generated files are kept in the OS temp folder for the next run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { randomUUID } from "node:crypto";
import ExcelJS from "exceljs";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import {
  cpuBetween,
  pidListeningOn,
  postgresCpuMs,
  type ProcGroup,
  snapshot,
  withChildren,
} from "../lib/proc-cpu";
import { DATABASE_URL, demo, mb, numArg, rssOf } from "../lib/stack";

const d = demo();
const ROWS = numArg("rows", 1_000_000);
const XLSX_ROWS = numArg("xlsx-rows", 100_000);
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const OFFSET = Number(process.env.STACK_PORT_OFFSET ?? 0);
const SCHEDULER_PORT = 3005 + OFFSET;
const ADMIN = { Authorization: `Bearer ${d.admin_token}` };

/** The processes an import runs through, found by their ports (PostgreSQL and RabbitMQ are shared: a quiet machine). */
const byPort =
  (port: number, children = false) =>
  () => {
    const pid = pidListeningOn(port);
    return pid ? (children ? withChildren(pid) : [pid]) : [];
  };
const PG_GROUP = { name: "postgresql" };
const GROUPS: ProcGroup[] = [
  { name: "scheduler", find: byPort(SCHEDULER_PORT) },
  { name: "s3rver", find: byPort(4569 + OFFSET) },
  { name: "public-api", find: byPort(3001 + OFFSET) },
  { name: "rabbitmq", find: byPort(5672) },
];
/** CPU ms of each group now, PostgreSQL counted with its reaped backends. */
function cpuNow(groups = GROUPS, withPostgres = true) {
  const snap = snapshot(groups);
  if (withPostgres) snap.set(PG_GROUP.name, postgresCpuMs());
  return snap;
}
/** CPU ms per row of each process, "name a.b" joined. */
const perRow = (cpu: Map<string, number>, rows: number) =>
  [...cpu].map(([name, ms]) => `${name} ${(ms / rows).toFixed(3)}`).join(", ");

/** Row i of the benchmark's contacts, the same for the CSV, the XLSX and the raw COPY. */
const row = (i: number) => ({
  email: `contact${i}@example${i % 997}.com`,
  first: `First${i}`,
  last: `Last${i}`,
  company: `Company ${i % 5003}`,
  city: `City ${i % 311}`,
  plan: i % 3 ? "pro" : "free",
  tags: i % 2 ? "customer,newsletter" : "newsletter",
});

async function csvFile(n: number): Promise<string> {
  const file = path.join(os.tmpdir(), `emailsvc-bench-imports-${n}.csv`);
  if (fs.existsSync(file)) return file;
  async function* lines() {
    yield "Email,First Name,Last Name,Company,City,Plan,Tags\r\n";
    let buf = "";
    for (let i = 0; i < n; i++) {
      const r = row(i);
      buf += `${r.email},${r.first},${r.last},${r.company},${r.city},${r.plan},"${r.tags}"\r\n`;
      if (buf.length > 1 << 20) {
        yield buf;
        buf = "";
      }
    }
    yield buf;
  }
  await pipeline(Readable.from(lines()), fs.createWriteStream(file + ".tmp"));
  fs.renameSync(file + ".tmp", file);
  return file;
}

async function xlsxFile(n: number): Promise<string> {
  const file = path.join(os.tmpdir(), `emailsvc-bench-imports-${n}.xlsx`);
  if (fs.existsSync(file)) return file;
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file + ".tmp", useSharedStrings: true });
  const ws = wb.addWorksheet("Contacts");
  ws.addRow(["Email", "First Name", "Last Name", "Company", "City", "Plan", "Tags"]).commit();
  for (let i = 0; i < n; i++) {
    const r = row(i);
    ws.addRow([r.email, r.first, r.last, r.company, r.city, r.plan, r.tags]).commit();
  }
  ws.commit();
  await wb.commit();
  fs.renameSync(file + ".tmp", file);
  return file;
}

/** COPY of the same rows, as the import would store them, into a fresh table LIKE leads (its indexes included). */
async function rawCopy(n: number): Promise<{ ms: number; cpu: Map<string, number> }> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const table = `bench_import_raw_${Date.now().toString(36)}`;
  try {
    await client.query(`CREATE TABLE ${table} (LIKE leads INCLUDING ALL)`);
    const projectId = randomUUID();
    async function* data() {
      let buf = "";
      for (let i = 0; i < n; i++) {
        const r = row(i);
        const attrs = JSON.stringify({ company: r.company, city: r.city, plan: r.plan });
        buf += `${randomUUID()}\t${projectId}\t${r.email}\t${r.email}\t${r.first}\t${r.last}\t${attrs}\t{${r.tags}}\timport\n`;
        if (buf.length > 1 << 20) {
          yield buf;
          buf = "";
        }
      }
      yield buf;
    }
    const pg0 = cpuNow([]);
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    await pipeline(
      Readable.from(data()),
      client.query(
        copyFrom(
          `COPY ${table} (id, project_id, email, email_normalized, first_name, last_name, attributes, tags, source) FROM STDIN`,
        ),
      ),
    );
    const ms = performance.now() - t0;
    const own = process.cpuUsage(own0);
    const cpu = cpuBetween(pg0, cpuNow([]));
    cpu.set("bench (COPY client)", (own.user + own.system) / 1000);
    return { ms, cpu };
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await client.end();
  }
}

const ticks = (pid: number | undefined): number => {
  if (!pid) return 0;
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

async function admin<T>(method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${d.internal_url}/admin${route}`, {
    method,
    headers: { ...ADMIN, ...(body ? { "Content-Type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

interface JobView {
  status: string;
  progress: { processed: number; total: number | null };
  counts: Record<string, number>;
  triggered_at: string | null;
  finished_at: string | null;
  failure_reason: string | null;
}

async function importFile(file: string, rows: number, label: string) {
  const { project } = await admin<{ project: { id: string } }>("POST", "/projects", {
    name: `bench imports ${label}`,
  });
  const size = fs.statSync(file).size;
  const t0 = performance.now();
  const up = await fetch(
    `${d.internal_url}/admin/projects/${project.id}/imports?filename=${path.basename(file)}`,
    {
      method: "POST",
      headers: { ...ADMIN, "Content-Type": "application/octet-stream", "Content-Length": String(size) },
      body: Readable.toWeb(fs.createReadStream(file)) as ReadableStream,
      duplex: "half",
    } as RequestInit,
  );
  if (up.status !== 201) throw new Error(`upload → ${up.status}: ${await up.text()}`);
  const { jobId } = (await up.json()) as { jobId: string };
  const uploaded = performance.now();
  const pid = pidListeningOn(SCHEDULER_PORT);
  const rss0 = await rssOf(SCHEDULER_PORT);
  const cpu0 = ticks(pid);
  const procs0 = cpuNow();
  let rssMax = rss0;
  const sampler = setInterval(() => {
    rssOf(SCHEDULER_PORT).then(
      (r) => (rssMax = Math.max(rssMax, r)),
      () => undefined,
    );
  }, 250);
  const trigger = await fetch(`${d.internal_url}/trigger-job`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "x-internal-token": d.internal_token },
    body: JSON.stringify({ jobId }),
  });
  if (trigger.status !== 200) throw new Error(`trigger → ${trigger.status}: ${await trigger.text()}`);
  let job: JobView;
  let last = 0;
  for (;;) {
    job = (await admin<{ job: JobView }>("GET", `/projects/${project.id}/imports/${jobId}`)).job;
    if (job.status !== "processing") break;
    if (performance.now() - last > 5000) {
      last = performance.now();
      process.stdout.write(`  ${label}: ${job.progress.processed} of ${job.progress.total ?? "?"} rows\n`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const done = performance.now();
  clearInterval(sampler);
  const cpu = ticks(pid) - cpu0;
  const procs = cpuBetween(procs0, cpuNow());
  if (job.status !== "completed") throw new Error(`job ${job.status}: ${job.failure_reason}`);
  const processingMs = new Date(job.finished_at!).getTime() - new Date(job.triggered_at!).getTime();
  return {
    jobId,
    sizeBytes: size,
    uploadMs: uploaded - t0,
    processingMs,
    endToEndMs: done - t0,
    counts: job.counts,
    rows,
    rssGrowth: rssMax - rss0,
    schedulerCpuMs: cpu,
    procs,
  };
}

const perSecond = (rows: number, ms: number) => Math.round(rows / (ms / 1000)).toLocaleString("en-US");
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main() {
  console.log(
    `bench/imports against ${d.internal_url} (scheduler on :${SCHEDULER_PORT}), ${os.cpus().length} CPUs`,
  );
  if (only !== "xlsx") {
    const file = await csvFile(ROWS);
    console.log(`\n1. CSV: ${ROWS.toLocaleString("en-US")} rows, ${mb(fs.statSync(file).size)} (${file})`);
    const r = await importFile(file, ROWS, "csv");
    const { ms: rawMs, cpu: rawCpu } = await rawCopy(ROWS);
    const rate = ROWS / (r.processingMs / 1000);
    const raw = ROWS / (rawMs / 1000);
    console.log(`   counts: ${JSON.stringify(r.counts)}`);
    console.log(`   upload (streamed to S3):      ${s(r.uploadMs)}`);
    console.log(
      `   processing (trigger → done):  ${s(r.processingMs)}  ${perSecond(ROWS, r.processingMs)} rows/s  (goal ≥ 20,000)`,
    );
    console.log(
      `   end to end (upload → done):   ${s(r.endToEndMs)}  ${perSecond(ROWS, r.endToEndMs)} rows/s`,
    );
    console.log(`   raw COPY, same rows and shape: ${s(rawMs)}  ${perSecond(ROWS, rawMs)} rows/s`);
    console.log(`   processing / raw COPY:        ${((rate / raw) * 100).toFixed(0)}%  (goal ≥ 40%)`);
    console.log(`   CPU ms per row, import:       ${perRow(r.procs, ROWS)}`);
    console.log(`   CPU ms per row, raw COPY:     ${perRow(rawCpu, ROWS)}`);
    console.log(`   scheduler RSS growth:         ${mb(r.rssGrowth)}  (goal < 150 MB)`);
    console.log(
      `   scheduler CPU:                ${(r.schedulerCpuMs / 1000).toFixed(1)} s  (${((r.schedulerCpuMs * 1000) / ROWS).toFixed(1)} µs per row)`,
    );
  }
  if (only !== "csv") {
    const file = await xlsxFile(XLSX_ROWS);
    console.log(
      `\n2. XLSX: ${XLSX_ROWS.toLocaleString("en-US")} rows, ${mb(fs.statSync(file).size)} (${file})`,
    );
    const r = await importFile(file, XLSX_ROWS, "xlsx");
    console.log(`   counts: ${JSON.stringify(r.counts)}`);
    console.log(`   upload (streamed to S3):      ${s(r.uploadMs)}`);
    console.log(
      `   processing (trigger → done):  ${s(r.processingMs)}  ${perSecond(XLSX_ROWS, r.processingMs)} rows/s  (goal ≥ 5,000)`,
    );
    console.log(
      `   end to end (upload → done):   ${s(r.endToEndMs)}  ${perSecond(XLSX_ROWS, r.endToEndMs)} rows/s`,
    );
    console.log(`   scheduler RSS growth:         ${mb(r.rssGrowth)}`);
    console.log(`   CPU ms per row:               ${perRow(r.procs, XLSX_ROWS)}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
