// What every package's tests share: waiting for a condition, an in-process S3 (s3rver), and a project with its
// keys and a verified sender. Real services only: these start or write the real thing, never a fake of it.
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import net from "node:net";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { testChildrenFile } from "./env";
import { processStartTime } from "./left-children";

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A port for a child service to listen on, free when returned: drawn from 20000-32767, below Linux's ephemeral
 * range (32768-60999). A port the kernel hands out for `listen(0)` comes from that range, where every outgoing
 * connection of the parallel test packages also takes its local port, so one freed and handed to a child was
 * sometimes taken before the child bound it (EADDRINUSE in CI).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once("error", () => resolve(false));
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Polls `check` until it returns something other than undefined, null or false; fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 5000,
  what = "condition",
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Runs every stop step of a test harness in order, each given at most `stepTimeoutMs`, and throws once at the end if
 * any failed or hung: a harness whose stop ended at its first failing step left the rest (a consumer, an outbox
 * relay) running in jest's process, where it took the package's next test file's messages.
 */
export async function stopEvery(steps: readonly (() => unknown)[], stepTimeoutMs = 15_000): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`a stop step took over ${stepTimeoutMs} ms`)), stepTimeoutMs);
    });
    await Promise.race([Promise.resolve().then(step), late])
      .catch((err: unknown) => errors.push(err))
      .finally(() => clearTimeout(timer));
  }
  if (errors.length > 0) throw new AggregateError(errors, "a test harness did not stop cleanly");
}

export interface TestS3 {
  endpoint: string;
  bucket: string;
  getObject(key: string): Promise<Buffer | null>;
  close(): Promise<void>;
}

/** s3rver on a free port with `bucket` created, in a temporary folder removed on close. */
export async function startS3(bucket = "attachments"): Promise<TestS3> {
  const dir = mkdtempSync(path.join(tmpdir(), "emailsvc-s3-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    directory: dir,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const addr = await server.run();
  const endpoint = `http://127.0.0.1:${addr.port}`;
  return {
    endpoint,
    bucket,
    async getObject(key) {
      const res = await fetch(`${endpoint}/${bucket}/${key.split("/").map(encodeURIComponent).join("/")}`);
      return res.ok ? Buffer.from(await res.arrayBuffer()) : null;
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `P` is the project id's type: @emailsvc/contracts' `ProjectId` when the factory is given db's createProject. */
export interface TestProject<P extends string = string> {
  projectId: P;
  liveKey: string;
  testKey: string;
  sender: string;
}

/**
 * What the project factory needs of @emailsvc/db, passed in: this package is a dev dependency of db itself, so it
 * cannot depend on db back (turbo refuses a cycle).
 */
export interface ProjectFactoryDeps<D, P extends string = string> {
  db: D;
  createProject(
    db: D,
    input: { name: string },
    encryptionKey: string,
  ): Promise<{ project: { id: P }; liveKey: string; testKey: string }>;
  /** Stores a verified sender profile for the project. */
  addVerifiedSender(db: D, projectId: P, email: string): Promise<unknown>;
  encryptionKey: string;
}

let seq = 0;

/** `makeProject()`: a project with its live and test keys and (unless told otherwise) one verified sender. */
export function projectFactory<D, P extends string = string>(deps: ProjectFactoryDeps<D, P>) {
  return async (opts: { verifiedSender?: boolean; name?: string } = {}): Promise<TestProject<P>> => {
    seq++;
    const tag = `${process.pid}-${seq}`;
    const { project, liveKey, testKey } = await deps.createProject(
      deps.db,
      { name: opts.name ?? `test project ${tag}` },
      deps.encryptionKey,
    );
    const sender = `sender${seq}@verified-${tag}.example.com`;
    if (opts.verifiedSender !== false) await deps.addVerifiedSender(deps.db, project.id, sender);
    return { projectId: project.id, liveKey, testKey, sender };
  };
}
export * from "./zip-builder";
export * from "./fuzz";

/**
 * A service a test started as a child process, SIGKILLed if it is still running when the package's next test file
 * loads (per-file-setup.js) or the package run ends (global-teardown.js): a failed beforeAll that never handed the
 * stack to its afterAll, a suite that timed out, jest's forceExit. Left running, its consumers took the next
 * file's (or run's) messages on the same vhost, and it kept its ports and CPU. The child is written to the run's list
 * (TEST_CHILDREN_FILE, made by global-setup) with its start time, so a pid reused since is never killed. An exit
 * hook in the test cannot do this: jest gives test code a sandboxed `process` whose "exit" never fires.
 */
function killOnExit<P extends ChildProcess>(proc: P): P {
  const file = testChildrenFile();
  const pid = proc.pid;
  if (!file || pid === undefined) return proc;
  const started = processStartTime(pid);
  if (started) appendFileSync(file, `+${pid} ${started}\n`);
  proc.once("exit", () => appendFileSync(file, `-${pid}\n`));
  return proc;
}

/**
 * A TypeScript entry point (a service's main.ts, a fixture) as a test's child process: node with tsx's loader, not
 * the tsx CLI, which runs the entry in a grandchild that a SIGKILL of the child misses (a SIGKILL test then passed
 * for the wrong reason, and the service outlived the run); and on the run's list, so global-teardown kills it if
 * the test left it running (killOnExit).
 */
export function spawnTs(entry: string, opts: SpawnOptions = {}): ChildProcess {
  return killOnExit(spawn(process.execPath, ["--conditions=development", "--import", "tsx", entry], opts));
}
export * from "./domain-service";
