#!/usr/bin/env node
// PostgreSQL, RabbitMQ and Redis on localhost, for `npm start` (scripts/bootstrap.js) and CI (.ci/run): the one
// place that knows how to install them, start them without systemd, and make PostgreSQL trust loopback TCP.
//
//   node scripts/infra.js [--also docker-compose] [--print-only]   ensure they are up (exit 1 when they are not)
//   node scripts/infra.js --plan [--also …]                        print what it would do here, change nothing
//
// `plan(facts)` is a pure function of what is present (tested with made-up machines); `gather()` looks at this
// machine. With root the steps run as they are, with sudo after printing them, and otherwise (or on a machine
// without apt) the exact commands are printed for the user to run. Plain CommonJS without dependencies: it runs
// before `pnpm install`.
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");

// Cluster of the port 5432 in Debian's postgresql-common layout, newest version when none is found by port.
const PG_CLUSTER = `$(pg_lsclusters -h 2>/dev/null | awk '$3 == 5432 { print $1, $2; exit }' | grep . || echo "$(ls /etc/postgresql | sort -V | tail -1) main")`;
const PG_LOGIN = "psql -h 127.0.0.1 -U postgres -tAc 'select 1' >/dev/null 2>&1";

/** The three services: how to find them, and their Debian (apt) and macOS (Homebrew) packages and start commands. */
const SERVICES = [
  {
    name: "postgresql",
    label: "PostgreSQL",
    port: 5432,
    urlEnv: "DATABASE_URL",
    commands: ["pg_ctlcluster", "pg_ctl", "postgres"],
    apt: "postgresql",
    aptStart: `pg_ctlcluster --skip-systemctl-redirect ${PG_CLUSTER} start`,
    brew: "postgresql@16",
    brewStart: "brew services start postgresql@16",
  },
  {
    name: "rabbitmq",
    label: "RabbitMQ",
    port: 5672,
    urlEnv: "RABBITMQ_URL",
    commands: ["rabbitmq-server"],
    apt: "rabbitmq-server",
    aptStart: "rabbitmq-server -detached && rabbitmqctl -q await_startup --timeout 120",
    brew: "rabbitmq",
    brewStart: "brew services start rabbitmq",
  },
  {
    name: "redis",
    label: "Redis",
    port: 6379,
    urlEnv: "REDIS_URL",
    commands: ["redis-server"],
    apt: "redis-server",
    aptStart:
      "mkdir -p /var/lib/redis /var/log/redis && redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 " +
      `--save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/emailsvc.log`,
    brew: "redis",
    brewStart: "brew services start redis",
  },
];

/** Other tools a caller may ask for (`--also`): CI validates docker-compose.yml offline with docker-compose. */
const EXTRAS = { "docker-compose": { apt: "docker-compose", brew: "docker-compose" } };

/**
 * The stack and the tests log in as postgres@127.0.0.1 without a password; a fresh Debian cluster asks for one
 * over TCP (scram-sha-256), so trust loopback TCP at the top of the cluster's pg_hba.conf (first match wins).
 * Guarded: it changes nothing where that login already works (or where there is no psql to tell).
 */
const TRUST_LOOPBACK =
  `if command -v psql >/dev/null && ! ${PG_LOGIN}; then set -- ${PG_CLUSTER}; ` +
  `sed -i '1i host all all 127.0.0.1/32 trust\\nhost all all ::1/128 trust' "/etc/postgresql/$1/$2/pg_hba.conf" && ` +
  `pg_ctlcluster --skip-systemctl-redirect "$1" "$2" reload && sleep 2; fi`;

/**
 * @typedef {object} Facts
 * @property {number} uid             0 for root
 * @property {boolean} sudo           a `sudo` command exists
 * @property {boolean} interactive    a terminal to ask a sudo password on
 * @property {boolean} sudoNoPassword `sudo -n true` works
 * @property {"apt"|"brew"|null} packageManager
 * @property {Record<string, boolean>} installed  service name (or extra) → its program is present
 * @property {Record<string, boolean>} up         service name → its port answers on 127.0.0.1
 * @property {boolean|null} pgLogin   postgres@127.0.0.1 logs in without a password (null: cannot tell)
 * @property {Record<string, boolean>} local      service name → the stack uses it on this machine (its *_URL
 *                                                is unset or names localhost); others are left alone
 * @property {boolean} defaultPgLogin DATABASE_URL is unset: the stack logs in as postgres without a password
 * @property {string[]} extras        tools asked for with --also
 */

/**
 * What to do on a machine with these facts: the packages to install, the services to start, whether to make
 * PostgreSQL trust loopback, the shell steps (in order) and how they can run: "root", "sudo", "print" (the
 * user must run them; also on machines without apt, where the steps are Homebrew's or only a description), or
 * "none" when everything is there.
 */
function plan(facts) {
  const wanted = SERVICES.filter((s) => facts.local[s.name]);
  const install = [
    ...wanted.filter((s) => !facts.installed[s.name] && !facts.up[s.name]).map((s) => s.name),
    ...facts.extras.filter((e) => !facts.installed[e]),
  ];
  const start = wanted.filter((s) => !facts.up[s.name]).map((s) => s.name);
  const pg = facts.local.postgresql && facts.defaultPgLogin;
  // A fresh cluster asks for a password; a running one is asked (pgLogin), one about to start is assumed to.
  const trustLoopback = pg && (start.includes("postgresql") || facts.pgLogin === false);
  const pm = facts.packageManager;
  const pkg = (name) =>
    (SERVICES.find((s) => s.name === name) ?? EXTRAS[name])[pm === "brew" ? "brew" : "apt"];
  const steps = [];
  if (install.length && pm === "apt")
    steps.push({
      what: `install ${install.join(", ")}`,
      sh: `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${install.map(pkg).join(" ")}`,
    });
  if (install.length && pm === "brew")
    steps.push({ what: `install ${install.join(", ")}`, sh: `brew install ${install.map(pkg).join(" ")}` });
  for (const name of start) {
    const s = SERVICES.find((x) => x.name === name);
    // apt's post-install may have started it already: a step starts only what does not answer by then
    if (pm === "apt")
      steps.push({
        what: `start ${s.label}`,
        sh: `(exec 3<>/dev/tcp/127.0.0.1/${s.port}) 2>/dev/null || { ${s.aptStart}; }`,
      });
    if (pm === "brew") steps.push({ what: `start ${s.label}`, sh: s.brewStart });
  }
  if (trustLoopback && pm === "apt")
    steps.push({ what: "make PostgreSQL trust TCP logins from 127.0.0.1 and ::1", sh: TRUST_LOOPBACK });
  if (trustLoopback && pm === "brew")
    // Homebrew's cluster trusts local logins but has no `postgres` role (its superuser is the macOS user).
    steps.push({
      what: "create the postgres role",
      sh: `${PG_LOGIN} || createuser -h 127.0.0.1 -s postgres`,
    });
  const nothing = install.length === 0 && start.length === 0 && !trustLoopback;
  // Homebrew needs no root, but installing services on someone's Mac unasked is too much: print the commands.
  const run = nothing
    ? "none"
    : pm !== "apt"
      ? "print"
      : facts.uid === 0
        ? "root"
        : facts.sudo && (facts.interactive || facts.sudoNoPassword)
          ? "sudo"
          : "print";
  return { install, start, trustLoopback, steps, run, nothing };
}

/** The plan as the lines a user reads: what is missing, then the commands (as root, or with sudo). */
function describe(p, facts, { dryRun = false } = {}) {
  if (p.nothing)
    return ["nothing to install or start: PostgreSQL, RabbitMQ and Redis answer where the stack uses them"];
  const lines = [];
  if (p.install.length) lines.push(`missing: ${p.install.join(", ")}`);
  if (p.start.length) lines.push(`not running: ${p.start.join(", ")}`);
  if (!p.steps.length) {
    // neither apt nor Homebrew: name what is needed and where the stack expects it
    lines.push(
      "install and start them with this machine's package manager, listening on 127.0.0.1: " +
        SERVICES.filter((s) => p.start.includes(s.name))
          .map((s) => `${s.label} :${s.port}`)
          .join(", ") +
        (p.trustLoopback
          ? "; PostgreSQL must let `postgres` log in over TCP from 127.0.0.1 without a password"
          : ""),
    );
    return lines;
  }
  // apt steps need root: as root they run as they are; a user with sudo gets them through sudo
  const asRoot = facts.packageManager === "apt" && facts.uid !== 0;
  const prefix = asRoot && facts.sudo ? "sudo " : "";
  lines.push(
    p.run !== "print"
      ? `${dryRun ? "would run" : "running"}${prefix ? " with sudo" : ""}:`
      : asRoot && !facts.sudo
        ? "run these commands as root:"
        : "run these commands:",
  );
  for (const s of p.steps)
    lines.push(`  # ${s.what}`, `  ${prefix}${prefix ? `bash -c '${s.sh.replace(/'/g, `'\\''`)}'` : s.sh}`);
  return lines;
}

// ---- this machine ----------------------------------------------------------------------------------------------

function hasCommand(cmd) {
  // /usr/sbin and /sbin: rabbitmq-server lives there, off a normal user's PATH on Debian
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/sbin", "/usr/local/sbin"];
  return dirs.some((d) => {
    try {
      fs.accessSync(path.join(d, cmd), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function portOpen(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1", ""]);

/**
 * Whether the stack uses the service as this script sets it up: its *_URL unset, or naming localhost on the
 * default port. A service elsewhere (another host, another port) is the user's own and left alone.
 */
function isOurs(s) {
  const url = process.env[s.urlEnv];
  if (!url) return true;
  try {
    const u = new URL(url);
    return LOCAL_HOSTS.has(u.hostname) && (Number(u.port) || s.port) === s.port;
  } catch {
    return false;
  }
}

async function gather(extras = []) {
  const up = {};
  const local = {};
  const installed = {};
  for (const s of SERVICES) {
    local[s.name] = isOurs(s);
    up[s.name] = await portOpen("127.0.0.1", s.port);
    installed[s.name] = s.commands.some(hasCommand);
  }
  for (const e of extras) installed[e] = hasCommand(e);
  const uid = typeof process.getuid === "function" ? process.getuid() : -1;
  const sudo = uid !== 0 && hasCommand("sudo");
  const pgLogin =
    up.postgresql && hasCommand("psql")
      ? spawnSync("sh", ["-c", PG_LOGIN], { stdio: "ignore" }).status === 0
      : null;
  return {
    uid,
    sudo,
    interactive: Boolean(process.stdin.isTTY),
    sudoNoPassword: sudo && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0,
    packageManager: hasCommand("apt-get") ? "apt" : hasCommand("brew") ? "brew" : null,
    installed,
    up,
    pgLogin,
    local,
    defaultPgLogin: !process.env.DATABASE_URL,
    extras,
  };
}

async function waitUp(names, seconds) {
  const deadline = Date.now() + seconds * 1000;
  const down = () =>
    Promise.all(
      SERVICES.filter((s) => names.includes(s.name)).map(async (s) =>
        (await portOpen("127.0.0.1", s.port)) ? null : s.label,
      ),
    ).then((r) => r.filter(Boolean));
  for (;;) {
    const left = await down();
    if (!left.length || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Makes the services the stack needs answer (installing and starting them when it may); returns an exit code. */
async function ensure({ extras = [], printOnly = false, log = (m) => console.log(`[infra] ${m}`) } = {}) {
  const facts = await gather(extras);
  const p = plan(facts);
  if (p.nothing) return 0;
  if (printOnly || p.run === "print") {
    for (const l of describe({ ...p, run: "print" }, facts)) log(l);
    if (facts.packageManager === "apt" && facts.uid !== 0)
      log("(npm start runs these itself when it is root or may use sudo)");
    return 1;
  }
  for (const l of describe(p, facts)) log(l);
  for (const step of p.steps) {
    log(step.what);
    const r =
      p.run === "root"
        ? spawnSync("bash", ["-c", step.sh], { stdio: "inherit" })
        : spawnSync("sudo", ["bash", "-c", step.sh], { stdio: "inherit" });
    if (r.status !== 0) {
      log(`failed (${r.status ?? r.signal}): ${step.sh}`);
      return 1;
    }
  }
  const down = await waitUp(
    SERVICES.filter((s) => facts.local[s.name]).map((s) => s.name),
    60,
  );
  if (down.length) {
    log(`${down.join(", ")} did not come up`);
    return 1;
  }
  if (facts.local.postgresql && facts.defaultPgLogin && hasCommand("psql")) {
    if (spawnSync("sh", ["-c", PG_LOGIN], { stdio: "ignore" }).status !== 0) {
      log("PostgreSQL does not let postgres log in over TCP from 127.0.0.1 without a password: put");
      log(
        "  host all all 127.0.0.1/32 trust  and  host all all ::1/128 trust  at the top of its pg_hba.conf and reload it",
      );
      return 1;
    }
  }
  log("PostgreSQL, RabbitMQ and Redis are up");
  return 0;
}

module.exports = { plan, describe, gather, ensure, SERVICES };

if (require.main === module) {
  const args = process.argv.slice(2);
  const extras = args.flatMap((a, i) => (args[i - 1] === "--also" ? [a] : []));
  const unknown = extras.filter((e) => !EXTRAS[e]);
  if (unknown.length) {
    console.error(`[infra] unknown --also ${unknown.join(", ")}; known: ${Object.keys(EXTRAS).join(", ")}`);
    process.exit(2);
  }
  if (args.includes("--plan")) {
    gather(extras).then((facts) => {
      const p = plan(facts);
      console.log(
        JSON.stringify({ install: p.install, start: p.start, trustLoopback: p.trustLoopback, run: p.run }),
      );
      for (const l of describe(p, facts, { dryRun: true })) console.log(l);
    });
  } else {
    ensure({ extras, printOnly: args.includes("--print-only") }).then((code) => process.exit(code));
  }
}
