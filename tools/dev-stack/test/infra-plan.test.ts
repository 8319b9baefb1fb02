/**
 * The decisions of scripts/infra.js, the set-up shared by `npm start` and `.ci/run`: which services it installs
 * and starts, and how, for made-up machines (pure `plan`, nothing runs); and its `--plan` dry run on this one.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(__dirname, "../../..");
const infra = require(path.join(root, "scripts/infra.js")) as {
  plan(facts: Facts): Plan;
  describe(plan: Plan, facts: Facts, opts?: { dryRun?: boolean }): string[];
};

interface Facts {
  uid: number;
  sudo: boolean;
  interactive: boolean;
  sudoNoPassword: boolean;
  packageManager: "apt" | "brew" | null;
  installed: Record<string, boolean>;
  up: Record<string, boolean>;
  pgLogin: boolean | null;
  local: Record<string, boolean>;
  defaultPgLogin: boolean;
  extras: string[];
}
interface Plan {
  install: string[];
  start: string[];
  trustLoopback: boolean;
  steps: { what: string; sh: string }[];
  run: "root" | "sudo" | "print" | "none";
  nothing: boolean;
}

const all = (v: boolean) => ({ postgresql: v, rabbitmq: v, redis: v });
/** A fresh Debian machine with only Node, as root. */
const fresh = (extra: Partial<Facts> = {}): Facts => ({
  uid: 0,
  sudo: false,
  interactive: false,
  sudoNoPassword: false,
  packageManager: "apt",
  installed: all(false),
  up: all(false),
  pgLogin: null,
  local: all(true),
  defaultPgLogin: true,
  extras: [],
  ...extra,
});
/** A machine where everything runs and postgres logs in. */
const ready = (extra: Partial<Facts> = {}): Facts =>
  fresh({ installed: all(true), up: all(true), pgLogin: true, ...extra });
const summary = (p: Plan) => ({
  install: p.install,
  start: p.start,
  trustLoopback: p.trustLoopback,
  run: p.run,
});

test("a fresh Debian machine as root: install all three, start them, trust loopback, and run it", () => {
  const p = infra.plan(fresh());
  expect(summary(p)).toEqual({
    install: ["postgresql", "rabbitmq", "redis"],
    start: ["postgresql", "rabbitmq", "redis"],
    trustLoopback: true,
    run: "root",
  });
  expect(p.steps.map((s) => s.what)).toEqual([
    "install postgresql, rabbitmq, redis",
    "start PostgreSQL",
    "start RabbitMQ",
    "start Redis",
    "make PostgreSQL trust TCP logins from 127.0.0.1 and ::1",
  ]);
  expect(p.steps[0]!.sh).toContain("apt-get install -y -qq postgresql rabbitmq-server redis-server");
  // without systemd
  expect(p.steps[1]!.sh).toContain("pg_ctlcluster --skip-systemctl-redirect");
  expect(p.steps[2]!.sh).toContain("rabbitmq-server -detached");
  expect(p.steps[3]!.sh).toContain("redis-server --daemonize yes");
  // each one is a well-formed bash command (checked, not run)
  for (const s of p.steps) expect(spawnSync("bash", ["-n", "-c", s.sh]).status).toBe(0);
});

test("everything up and postgres logging in: nothing to do", () => {
  const p = infra.plan(ready());
  expect(summary(p)).toEqual({ install: [], start: [], trustLoopback: false, run: "none" });
  expect(p.steps).toEqual([]);
});

test("installed but stopped: only the stopped ones are started, nothing installed", () => {
  const p = infra.plan(ready({ up: { postgresql: true, rabbitmq: false, redis: false } }));
  expect(summary(p)).toEqual({
    install: [],
    start: ["rabbitmq", "redis"],
    trustLoopback: false,
    run: "root",
  });
});

test("PostgreSQL up but asking postgres for a password: only the pg_hba.conf trust step", () => {
  const p = infra.plan(ready({ pgLogin: false }));
  expect(summary(p)).toEqual({ install: [], start: [], trustLoopback: true, run: "root" });
  expect(p.steps).toHaveLength(1);
  expect(p.steps[0]!.sh).toContain("1i host all all 127.0.0.1/32 trust\\nhost all all ::1/128 trust");
});

test("a service answering on its port is not installed, even without its program here (e.g. in a container)", () => {
  const p = infra.plan(fresh({ up: { postgresql: true, rabbitmq: true, redis: false }, pgLogin: true }));
  expect(summary(p)).toEqual({ install: ["redis"], start: ["redis"], trustLoopback: false, run: "root" });
});

test("services the stack reaches elsewhere (their *_URL) are left alone, and so is a DATABASE_URL's login", () => {
  const p = infra.plan(
    fresh({ local: { postgresql: false, rabbitmq: true, redis: false }, defaultPgLogin: false }),
  );
  expect(summary(p)).toEqual({
    install: ["rabbitmq"],
    start: ["rabbitmq"],
    trustLoopback: false,
    run: "root",
  });
  const own = infra.plan(ready({ pgLogin: false, defaultPgLogin: false }));
  expect(own.nothing).toBe(true);
});

test("CI asks for docker-compose as well", () => {
  const p = infra.plan(
    ready({ extras: ["docker-compose"], installed: { ...all(true), "docker-compose": false } }),
  );
  expect(summary(p)).toEqual({ install: ["docker-compose"], start: [], trustLoopback: false, run: "root" });
  expect(p.steps[0]!.sh).toContain("apt-get install -y -qq docker-compose");
});

test("a user with sudo: the same steps through sudo, said before they run; without a terminal only passwordless sudo", () => {
  const user = { uid: 1000, sudo: true, interactive: true };
  const p = infra.plan(fresh(user));
  expect(p.run).toBe("sudo");
  const lines = infra.describe(p, fresh(user));
  expect(lines).toContain("running with sudo:");
  expect(lines.filter((l) => l.startsWith("  sudo bash -c '"))).toHaveLength(p.steps.length);
  expect(infra.plan(fresh({ ...user, interactive: false })).run).toBe("print");
  expect(infra.plan(fresh({ ...user, interactive: false, sudoNoPassword: true })).run).toBe("sudo");
});

test("a user without root or sudo: nothing runs, the exact commands are printed to run as root", () => {
  const facts = fresh({ uid: 1000 });
  const p = infra.plan(facts);
  expect(p.run).toBe("print");
  const lines = infra.describe(p, facts);
  expect(lines).toContain("run these commands as root:");
  expect(lines).toContain(`  ${p.steps[0]!.sh}`);
});

test("macOS with Homebrew: brew commands, printed rather than run", () => {
  const facts = fresh({ uid: 501, packageManager: "brew" });
  const p = infra.plan(facts);
  expect(p.run).toBe("print");
  expect(p.steps.map((s) => s.sh)).toEqual([
    "brew install postgresql@16 rabbitmq redis",
    "brew services start postgresql@16",
    "brew services start rabbitmq",
    "brew services start redis",
    expect.stringContaining("createuser -h 127.0.0.1 -s postgres"),
  ]);
});

test("neither apt nor Homebrew: no commands to guess, the services and ports are named", () => {
  const facts = fresh({ uid: 1000, packageManager: null });
  const p = infra.plan(facts);
  expect(p.steps).toEqual([]);
  expect(infra.describe(p, facts).join("\n")).toContain("PostgreSQL :5432, RabbitMQ :5672, Redis :6379");
});

test("--plan on this machine (where the tests' services run) changes nothing and finds nothing to do", () => {
  const r = spawnSync(process.execPath, [path.join(root, "scripts/infra.js"), "--plan"], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: "", RABBITMQ_URL: "", REDIS_URL: "" },
  });
  expect(r.status).toBe(0);
  expect(JSON.parse(r.stdout.split("\n")[0]!)).toMatchObject({ install: [], start: [], run: "none" });
});
