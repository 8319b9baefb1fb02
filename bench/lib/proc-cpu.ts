// CPU time of the stack's processes, read from /proc (Linux): a figure per email that holds still when the
// machine's speed drifts, unlike a rate measured against the wall clock.
import fs from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (100 on Linux: `getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

/** utime + stime of one process in ms, or 0 when it is gone. */
function cpuMsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // fields after the command name (which may hold spaces), from field 3 on
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function pids(): number[] {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** The process listening on TCP `port` (IPv4 or IPv6), found through its socket inode. */
export function pidListeningOn(port: number): number | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is ADDR:PORT, state 0A is LISTEN, inode is column 10
      if (cols[1]?.endsWith(`:${hex}`) && cols[3] === "0A") inodes.add(cols[9]!);
    }
  }
  if (!inodes.size) return undefined;
  for (const pid of pids()) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        const m = /^socket:\[(\d+)\]$/.exec(link);
        if (m && inodes.has(m[1]!)) return pid;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return undefined;
}

/** `pid` and its direct children (PostgreSQL: the postmaster and its backends and workers). */
export function withChildren(pid: number): number[] {
  const out = [pid];
  for (const p of pids()) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(p);
    } catch {
      /* gone */
    }
  }
  return out;
}

export interface ProcGroup {
  name: string;
  /** Processes found when the snapshot is taken (a group's children are looked up again each time). */
  find: () => number[];
  /** The group's CPU ms now, when it is not the sum over `find` (PostgreSQL: postgresCpuMs). */
  cpuMs?: () => number;
}

/**
 * PostgreSQL's CPU ms: its backends now, plus the postmaster's own and that of the backends it has reaped
 * (cutime + cstime). Summed over the live backends only, a backend that ended between two snapshots (a pool's
 * connection retired, a relay's or a runner's connection released) took its CPU with it: figures came out low,
 * and negative. Every database of the server is counted: run on a quiet machine.
 */
export function postgresCpuMs(port = 5432): number {
  const pid = pidListeningOn(port);
  if (!pid) return 0;
  let ms = 0;
  for (const p of withChildren(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const reaped = p === pid ? Number(f[13]) + Number(f[14]) : 0;
      ms += ((Number(f[11]) + Number(f[12]) + reaped) * 1000) / TICKS_PER_SECOND;
    } catch {
      /* ended meanwhile: counted in the postmaster's cutime from now on */
    }
  }
  return ms;
}

export type CpuSnapshot = Map<string, number>;

/** CPU ms per group now. A backend that ended between two snapshots takes its CPU with it (an undercount). */
export function snapshot(groups: ProcGroup[]): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const g of groups)
    out.set(g.name, g.cpuMs ? g.cpuMs() : g.find().reduce((sum, pid) => sum + cpuMsOf(pid), 0));
  return out;
}

/** CPU ms per group between two snapshots. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, ms] of after) out.set(name, ms - (before.get(name) ?? 0));
  return out;
}

/** The groups of a `pnpm start` stack, found by the ports they listen on. */
export function stackGroups(offset: number): ProcGroup[] {
  const byPort = (port: number) => () => {
    const pid = pidListeningOn(port);
    return pid ? [pid] : [];
  };
  const withKids = (port: number) => () => {
    const pid = pidListeningOn(port);
    return pid ? withChildren(pid) : [];
  };
  return [
    { name: "public-api", find: byPort(3001 + offset) },
    { name: "send-worker", find: byPort(3003 + offset) },
    { name: "notification-ingest", find: byPort(3006 + offset) },
    { name: "webhook-dispatcher", find: byPort(3008 + offset) },
    { name: "gateway", find: byPort(8080 + offset) },
    // shared with anything else using them on this machine: run on a quiet machine
    { name: "postgresql", find: withKids(5432), cpuMs: () => postgresCpuMs(5432) },
    { name: "rabbitmq", find: byPort(5672) },
    { name: "simulator", find: byPort(4566 + offset) },
  ];
}

/**
 * Waits until the stack is quiet: its processes used less than `quietMs` of CPU over one second (the earlier
 * phases' backlog sent, their dead rows vacuumed), at most `maxMs`. Resolves with the seconds waited.
 */
export async function waitForQuiet(groups: ProcGroup[], maxMs = 60_000, quietMs = 150): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = snapshot(groups);
    await new Promise((r) => setTimeout(r, 1000));
    const used = [...cpuBetween(before, snapshot(groups)).values()].reduce((a, b) => a + b, 0);
    if (used < quietMs || Date.now() - started >= maxMs) return (Date.now() - started) / 1000;
  }
}
