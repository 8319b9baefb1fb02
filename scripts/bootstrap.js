#!/usr/bin/env node
// Entry point behind `npm start` / `npm test` (and `pnpm start` / `pnpm test`): on a machine that has
// only Node 20 and npm it installs the pinned pnpm and the workspace dependencies first (and for `start`,
// PostgreSQL, RabbitMQ and Redis through scripts/infra.js), so the two README commands are the whole set-up.
// Plain CommonJS with no dependencies on purpose.
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
// The pinned version is package.json's packageManager ("pnpm@x.y.z"), so the two cannot drift apart.
const PNPM_VERSION = require(path.join(root, "package.json")).packageManager.replace(/^pnpm@/, "");
const localBin = path.join(root, ".local", "tools", "node_modules", ".bin");

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function hasPnpm(bin) {
  const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim().startsWith("10.");
}

// The README's later commands (`pnpm admin …`, `pnpm db:migrate`) run in the user's shell, so pnpm has to be on
// their PATH: a global install first; .local/tools (on the PATH of our children only) when npm may not write there.
function ensurePnpm() {
  if (hasPnpm("pnpm")) return "pnpm";
  const local = path.join(localBin, "pnpm");
  if (hasPnpm(local)) return usingLocal(local);
  console.log(`[bootstrap] installing pnpm@${PNPM_VERSION} (npm install -g)`);
  const g = spawnSync("npm", ["install", "-g", "--no-audit", "--no-fund", `pnpm@${PNPM_VERSION}`], {
    stdio: ["ignore", "inherit", "pipe"],
    encoding: "utf8",
  });
  if (g.status === 0 && hasPnpm("pnpm")) return "pnpm";
  const npmError = (g.stderr ?? "").split("\n").find((l) => l.includes("error")) ?? "npm failed";
  const why = g.status === 0 ? "npm's global bin directory is not on PATH" : npmError.trim();
  console.log(`[bootstrap] the global install did not work (${why}); installing pnpm into .local/tools`);
  const status = run("npm", [
    "install",
    "--no-save",
    "--no-audit",
    "--no-fund",
    "--prefix",
    path.join(root, ".local", "tools"),
    `pnpm@${PNPM_VERSION}`,
  ]);
  if (status !== 0 || !hasPnpm(local)) {
    console.error("[bootstrap] could not install pnpm; install it with: npm i -g pnpm@" + PNPM_VERSION);
    process.exit(1);
  }
  return usingLocal(local);
}

function usingLocal(local) {
  console.log(
    `[bootstrap] pnpm is in .local/tools, not on your PATH. For the README's other pnpm commands either\n` +
      `    export PATH="${path.dirname(local)}:$PATH"   (this shell), or: sudo npm install -g pnpm@${PNPM_VERSION}`,
  );
  return local;
}

function ensureDeps(pnpm) {
  const marker = path.join(root, "node_modules", ".modules.yaml");
  const lock = path.join(root, "pnpm-lock.yaml");
  const fresh = fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs;
  if (fresh) return;
  console.log("[bootstrap] installing dependencies (pnpm install --frozen-lockfile)");
  const status = run(pnpm, ["install", "--frozen-lockfile"]);
  if (status !== 0) process.exit(status);
}

const [command, ...rest] = process.argv.slice(2);
// PostgreSQL, RabbitMQ and Redis first (installed and started when missing, as .ci/run does through the same
// script): on a fresh machine there is nothing to start yet. It prints the commands when it may not run them.
if (command === "start") {
  const infra = run(process.execPath, [path.join(__dirname, "infra.js")]);
  if (infra !== 0) process.exit(infra);
}
const pnpm = ensurePnpm();
ensureDeps(pnpm);
const env = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: "1",
  PATH: `${localBin}${path.delimiter}${process.env.PATH}`,
};

switch (command) {
  case "start": {
    // The Prisma client is generated code (not committed): a fresh checkout needs it before any service runs.
    const generated = run(pnpm, ["exec", "turbo", "run", "generate", "--output-logs=errors-only"], { env });
    if (generated !== 0) {
      process.exitCode = generated;
      break;
    }
    process.exitCode = run(
      pnpm,
      ["exec", "tsx", "--conditions=development", "tools/dev-stack/src/start.ts", ...rest],
      { env },
    );
    break;
  }
  case "test":
    process.exitCode = run(
      pnpm,
      ["exec", "turbo", "run", "test", "--concurrency=2", "--output-logs=errors-only", "--continue", ...rest],
      { env },
    );
    break;
  case undefined:
    break;
  default:
    console.error(`unknown command ${command}; use start or test`);
    process.exitCode = 2;
}
