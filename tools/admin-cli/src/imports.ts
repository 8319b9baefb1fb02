/**
 * `pnpm admin imports …`: contact imports (issue 25) over the admin API and public-api's POST /trigger-job.
 *   upload <projectId> <file> [options] [--start]   stream a CSV/XLSX file up, set options, print mapping + preview
 *   set <projectId> <jobId> [options]               change a pending job's options
 *   preview <projectId> <jobId>                     the first 20 rows as they would be imported
 *   start <jobId>                                   POST /trigger-job
 *   show <projectId> <jobId> [--watch]              state, progress and counts (--watch: until it ends)
 *   list <projectId> [--status s]
 *   errors <projectId> <jobId> [--out file.csv]     the error report (stdout without --out)
 *   cancel <projectId> <jobId>
 */
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Command } from "commander";
import { type AdminTarget, call, callInternal } from "./client";

interface Helpers {
  target: () => AdminTarget;
  print: (value: unknown) => void;
  route: (parts: TemplateStringsArray, ...values: string[]) => string;
}

interface OptionFlags {
  mode?: string;
  tags?: string;
  segment?: string;
  honorSubscription?: boolean;
  defaultSubscription?: string;
  map?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function withOptionFlags(cmd: Command): Command {
  return cmd
    .option("--mode <mode>", "upsert (default) | insert-only (skip existing) | update-only (skip new)")
    .option("--tags <tags>", "comma-separated tags added to every imported lead")
    .option("--segment <segmentId>", "a static segment every imported lead joins ('' for none)")
    .option("--no-honor-subscription", "ignore a subscription column (by default it sets consent)")
    .option(
      "--default-subscription <state>",
      "a new lead's consent when its row says none: unknown | subscribed",
    )
    .option(
      "--map <header=target>",
      "map a column: email, first_name, last_name, name, phone, tags, subscription, unsubscribed, ignore or attribute:<name> (repeatable)",
      collect,
    );
}

/** The PATCH body of the flags given (undefined when none was). */
function optionsBody(o: OptionFlags): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = {};
  if (o.mode) body.mode = o.mode;
  if (o.tags !== undefined)
    body.tags = o.tags
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
  if (o.segment !== undefined) body.segment_id = o.segment === "" ? null : o.segment;
  if (o.honorSubscription === false) body.honor_subscription = false;
  if (o.defaultSubscription) body.default_subscription = o.defaultSubscription;
  if (o.map?.length)
    body.mapping = Object.fromEntries(
      o.map.map((m) => {
        const at = m.lastIndexOf("=");
        if (at <= 0) throw new Error(`--map wants header=target, got ${m}`);
        return [m.slice(0, at), m.slice(at + 1)];
      }),
    );
  return Object.keys(body).length ? body : undefined;
}

/** public-api's internal base (the admin URL without /admin): POST /trigger-job is served there. */
const internalBase = (t: AdminTarget) => t.url.replace(/\/admin$/, "");

async function failOn(res: Response, what: string): Promise<void> {
  if (res.ok) return;
  const text = await res.text();
  let msg = text;
  try {
    msg = (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    /* not JSON */
  }
  throw new Error(`${what} → ${res.status}: ${msg}`);
}

export function registerImportCommands(program: Command, h: Helpers): void {
  const { target, print, route } = h;
  const imports = program.command("imports").description("import contacts from CSV or XLSX files");
  // `pnpm admin` runs inside tools/admin-cli; a relative path is read from where pnpm was started.
  const resolve = (file: string) => path.resolve(process.env.INIT_CWD ?? process.cwd(), file);

  withOptionFlags(
    imports
      .command("upload <projectId> <file>")
      .description("upload a file (streamed), set options, and show the mapping and preview")
      .option("--start", "start the import right away (POST /trigger-job)"),
  ).action(async (id: string, file: string, o: OptionFlags & { start?: boolean }) => {
    const t = target();
    const filePath = resolve(file);
    const res = await fetch(
      `${t.url}${route`/projects/${id}/imports`}?filename=${encodeURIComponent(path.basename(filePath))}`,
      {
        method: "POST",
        headers: {
          Authorization: `Bearer ${t.token}`,
          "Content-Type": "application/octet-stream",
          "Content-Length": String(fs.statSync(filePath).size),
        },
        body: Readable.toWeb(fs.createReadStream(filePath)) as ReadableStream,
        duplex: "half",
      } as RequestInit,
    );
    await failOn(res, "upload");
    const { jobId } = (await res.json()) as { jobId: string };
    const body = optionsBody(o);
    if (body) await call(t, "PATCH", route`/projects/${id}/imports/${jobId}`, body);
    const job = await call(t, "GET", route`/projects/${id}/imports/${jobId}`);
    const preview = await call(t, "GET", route`/projects/${id}/imports/${jobId}/preview`);
    print({ job: (job as { job: unknown }).job, preview: (preview as { rows: unknown }).rows });
    if (o.start) print(await callInternal(internalBase(t), "/trigger-job", { jobId }));
  });

  withOptionFlags(
    imports.command("set <projectId> <jobId>").description("change a pending job's options"),
  ).action(async (id: string, jobId: string, o: OptionFlags) =>
    print(await call(target(), "PATCH", route`/projects/${id}/imports/${jobId}`, optionsBody(o) ?? {})),
  );

  imports
    .command("preview <projectId> <jobId>")
    .action(async (id: string, jobId: string) =>
      print(await call(target(), "GET", route`/projects/${id}/imports/${jobId}/preview`)),
    );

  imports
    .command("start <jobId>")
    .description("POST /trigger-job: a pending job starts; any other is left as it is")
    .action(async (jobId: string) => {
      const t = target();
      print(await callInternal(internalBase(t), "/trigger-job", { jobId }));
    });

  imports
    .command("show <projectId> <jobId>")
    .option("--watch", "print progress every second until the job ends")
    .action(async (id: string, jobId: string, o: { watch?: boolean }) => {
      for (;;) {
        const { job } = (await call(target(), "GET", route`/projects/${id}/imports/${jobId}`)) as {
          job: { status: string; progress: unknown; counts: unknown };
        };
        if (!o.watch) return print(job);
        if (job.status !== "processing" && job.status !== "pending") return print(job);
        print({ status: job.status, progress: job.progress, counts: job.counts });
        await new Promise((r) => setTimeout(r, 1000));
      }
    });

  imports
    .command("list <projectId>")
    .option("--status <status>", "pending | processing | completed | failed | cancelled")
    .action(async (id: string, o: { status?: string }) =>
      print(
        await call(
          target(),
          "GET",
          route`/projects/${id}/imports` + (o.status ? route`?status=${o.status}` : ""),
        ),
      ),
    );

  imports
    .command("errors <projectId> <jobId>")
    .description("download the error report (CSV: line, reason, the row's cells)")
    .option("--out <file>", "write it to a file instead of stdout")
    .action(async (id: string, jobId: string, o: { out?: string }) => {
      const t = target();
      const res = await fetch(`${t.url}${route`/projects/${id}/imports/${jobId}/errors.csv`}`, {
        headers: { Authorization: `Bearer ${t.token}` },
      });
      await failOn(res, "error report");
      const body = Readable.fromWeb(res.body as never);
      await pipeline(body, o.out ? fs.createWriteStream(resolve(o.out)) : process.stdout);
    });

  imports
    .command("cancel <projectId> <jobId>")
    .action(async (id: string, jobId: string) =>
      print(await call(target(), "POST", route`/projects/${id}/imports/${jobId}/cancel`)),
    );
}
