import {
  beginImportRun,
  type ChunkOutcome,
  commitImportChunk,
  completeImportJob,
  connectSession,
  type Db,
  createImportLeadsEncoder,
  failImportJob,
  type ImportChunk,
  isChunkConflict,
  type ImportJobRow,
  type ImportLead,
  type PoolClient,
  setImportTotal,
  tryLockImportJob,
  unlockImportJob,
} from "@emailsvc/db";
import {
  countDataRows,
  createRowReader,
  type ImportSource,
  ImportFileError,
  openImportFile,
  reportCell,
  type Row,
  SeenEmails,
} from "@emailsvc/imports";
import type { Logger } from "@emailsvc/observability";
import { isTransientDbError } from "./transient";

export interface ProcessImportDeps {
  db: Db;
  logger: Logger;
  /** The uploaded file, or null when it is gone from storage. */
  openSource(storageKey: string): Promise<ImportSource | null>;
  chunkRows: number;
  /** Chunks written at once, each on a connection of its own (their checkpoints still commit in order). */
  parallelChunks: number;
  /** Called after each chunk: a full garbage collection when the heap has grown keeps it from growing with the file. */
  collectGarbage?: () => void;
  maxAttempts: number;
}

/**
 * How a run ended: `busy` (another processor holds the job), `gone` (no longer processing), `completed`, `failed`,
 * `cancelled`, `stopped` (shutdown: the job stays processing and resumes elsewhere) or `retry` (a transient
 * problem, e.g. the database restarting: the sweep runs it again from its checkpoint).
 */
export type RunResult = "busy" | "gone" | "completed" | "failed" | "cancelled" | "stopped" | "retry";

class Cancelled extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One chunk, done again after a conflict with another writer of the same leads (rolled back). Its checkpoint waits
 * for the chunk before it (written in parallel on another connection) to commit, for at most a minute and only
 * while the run goes on; `committed: false` otherwise means the job left `processing`.
 */
async function commitWithRetry(
  client: PoolClient,
  job: ImportJobRow,
  chunk: ImportChunk,
  /** The run is ending (a chunk before this one failed): no more attempts. */
  ended: AbortSignal,
): Promise<ChunkOutcome> {
  const settings = {
    mode: job.options.mode,
    defaultSubscription: job.options.default_subscription,
    segmentId: job.options.segment_id,
  };
  for (let conflicts = 0; ;) {
    const deadline = Date.now() + 60_000;
    try {
      return await commitImportChunk(client, job.project_id, job.id, settings, chunk, () => {
        return !ended.aborted && Date.now() < deadline;
      });
    } catch (err) {
      // Another writer on the same leads (another job, the API): the chunk was rolled back; do it again.
      if (!isChunkConflict(err) || ++conflicts >= 5 || ended.aborted) throw err;
      await sleep(20 * conflicts);
    }
  }
}

/** A chunk being read: its leads as objects until it is full, then encoded (ImportChunk) and the objects dropped. */
interface OpenChunk extends Omit<ImportChunk, "leads"> {
  leads: ImportLead[];
  /** The row of each lead, at the lead's index (for the report, should the database refuse the lead). */
  leadRows: Row[];
}

function newChunk(from: number): OpenChunk {
  const leadRows: Row[] = [];
  return {
    from,
    rows: 0,
    leads: [],
    rejected: [],
    duplicates: 0,
    invalid: 0,
    leadRows,
    cellsOf: (line) => (leadRows.find((r) => r.line === line)?.cells ?? []).map(reportCell),
  };
}

/** The chunk as it is written: its leads encoded, its lead objects left to the garbage collector. */
function sealChunk(open: OpenChunk, encode: (leads: ImportLead[]) => ImportChunk["leads"]): ImportChunk {
  const { leads, leadRows: _rows, ...rest } = open;
  return { ...rest, leads: encode(leads) };
}

/**
 * Reads the job's file from its checkpoint to the end, a chunk at a time. Rows before the checkpoint are read
 * again only to rebuild the set of emails already met (duplicates), never written. While one chunk commits, the
 * next one is parsed. Resolves with how the rows ended: all read, cancelled, or stopped by `signal`.
 */
async function importRows(
  deps: ProcessImportDeps,
  client: PoolClient,
  job: ImportJobRow,
  source: ImportSource,
  signal: AbortSignal,
): Promise<"completed" | "cancelled" | "stopped"> {
  const file = await openImportFile(source);
  const read = createRowReader(job.mapping, job.options);
  const seen = new SeenEmails();
  const skip = job.processed_rows;
  let consumed = 0;
  let chunk = newChunk(skip);
  // Up to `parallelChunks` chunks in flight, chunk k on connection k mod n, settled in order: while they commit,
  // the next one is parsed, and the database works on several at once.
  const extra: PoolClient[] = [];
  const conns = [client];
  const inflight: Promise<ChunkOutcome>[] = [];
  // One encoder per connection: chunk k reuses the buffers of chunk k - n, which has settled before it is sealed.
  const encoders: ReturnType<typeof createImportLeadsEncoder>[] = [];
  const ended = new AbortController();
  let sent = 0;
  const settleOldest = async () => {
    if (!(await inflight.shift()!).committed) throw new Cancelled();
  };
  const settleAll = async () => {
    while (inflight.length) await settleOldest();
  };
  const send = async () => {
    if (inflight.length >= conns.length) await settleOldest();
    const slot = sent % conns.length;
    const full = sealChunk(chunk, (encoders[slot] ??= createImportLeadsEncoder()));
    chunk = newChunk(full.from + full.rows);
    const done = commitWithRetry(conns[slot]!, job, full, ended.signal);
    sent++;
    // A failed commit is awaited when it is settled; until then it must not count as unhandled.
    done.catch(() => undefined);
    inflight.push(done);
  };
  try {
    for (let i = 1; i < deps.parallelChunks; i++) {
      const c = await connectSession(deps.db);
      extra.push(c);
      c.on("error", () => undefined); // a lost session fails its query, which ends the run
      conns.push(c);
    }
    for await (const batch of file.rows) {
      for (const row of batch) {
        const outcome = read(row);
        if (consumed++ < skip) {
          if (outcome.ok) seen.add(outcome.lead.norm, outcome.lead.line);
          continue;
        }
        chunk.rows++;
        if (!outcome.ok) {
          chunk.invalid++;
          chunk.rejected.push({ line: row.line, reason: outcome.reason, cells: row.cells.map(reportCell) });
        } else {
          const first = seen.add(outcome.lead.norm, row.line);
          if (first) {
            chunk.duplicates++;
            chunk.rejected.push({
              line: row.line,
              reason: `duplicate of line ${first}`,
              cells: row.cells.map(reportCell),
            });
          } else {
            chunk.leads.push(outcome.lead);
            chunk.leadRows.push(row);
          }
        }
        if (chunk.rows >= deps.chunkRows) {
          await send();
          deps.collectGarbage?.();
          if (signal.aborted) {
            await settleAll();
            return "stopped";
          }
        }
      }
    }
    if (chunk.rows > 0) await send();
    await settleAll();
    return "completed";
  } catch (err) {
    ended.abort();
    await Promise.allSettled(inflight);
    if (err instanceof Cancelled) return "cancelled";
    throw err;
  } finally {
    for (const c of extra) c.release(true); // never reused: one may be in an unknown state after an error
    await file.close();
  }
}

/**
 * One run of an import job on a connection of its own, under the job's advisory lock: counts the rows when the
 * total is not known yet, imports from the checkpoint, and completes the job. A problem with the file fails the
 * job with its reason; a transient one (the database restarting, S3 unreachable) leaves it `processing` for the
 * next sweep; anything else is tried again up to IMPORT_MAX_ATTEMPTS runs. `onClaimed` is called once the run
 * holds the job.
 */
export async function processImportJob(
  deps: ProcessImportDeps,
  jobId: string,
  signal: AbortSignal,
  onClaimed: () => void = () => undefined,
): Promise<RunResult> {
  const client = await connectSession(deps.db);
  let locked = false;
  let broken: Error | undefined;
  // A session ended by the server (a restart, a terminated backend) emits here; without a listener it would
  // crash the process. The query in flight fails too, and that failure ends the run.
  const onError = (err: Error) => void (broken = err);
  client.on("error", onError);
  let job: ImportJobRow | undefined;
  const log = deps.logger.child({ importJobId: jobId });
  try {
    locked = await tryLockImportJob(client, jobId);
    if (!locked) return "busy";
    job = await beginImportRun(client, jobId);
    if (!job) return "gone";
    onClaimed();
    if (job.attempts > deps.maxAttempts) {
      await failImportJob(deps.db, job.project_id, jobId, `stopped after ${deps.maxAttempts} attempts`);
      return "failed";
    }
    const source = await deps.openSource(job.storage_key);
    if (!source) throw new ImportFileError("the uploaded file is no longer stored", "unreadable");
    if (job.total_rows === null) {
      const total = await countDataRows(source);
      if (total === 0) throw new ImportFileError("the file has a header but no rows below it", "no_rows");
      await setImportTotal(client, job.project_id, jobId, total);
    }
    log.info(
      { projectId: job.project_id, from: job.processed_rows, attempt: job.attempts },
      "import run started",
    );
    const ended = await importRows(deps, client, job, source, signal);
    if (ended === "completed" && !(await completeImportJob(client, job.project_id, jobId)))
      return "cancelled";
    log.info({ projectId: job.project_id, ended }, "import run ended");
    return ended;
  } catch (err) {
    if (err instanceof ImportFileError && job) {
      log.info({ reason: err.message }, "import job failed on its file");
      await failImportJob(deps.db, job.project_id, jobId, err.message);
      return "failed";
    }
    if (isTransientDbError(err)) {
      broken = err as Error;
      log.warn({ err }, "import run interrupted; it resumes from its checkpoint");
      return "retry";
    }
    log.error({ err }, "import run failed; it is tried again from its checkpoint");
    if (job && job.attempts >= deps.maxAttempts) {
      await failImportJob(
        deps.db,
        job.project_id,
        jobId,
        `stopped after ${deps.maxAttempts} attempts; the last one failed: ${err instanceof Error ? err.message : String(err)}`,
      ).catch(() => undefined);
      return "failed";
    }
    return "retry";
  } finally {
    if (locked && !broken) await unlockImportJob(client, jobId).catch((e: Error) => (broken = e));
    client.off("error", onError);
    // A broken connection is destroyed (its session, and so the lock, ends with it), never reused.
    client.release(broken);
  }
}
