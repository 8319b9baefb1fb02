// Recreates one RabbitMQ vhost for a package's test run: `node rabbit-vhost.js <vhost>` (global-setup), or deletes
// it when the run is over: `node rabbit-vhost.js <vhost> --delete` (global-teardown). global-setup runs it
// under flock so vhost changes happen one at a time across the packages turbo runs at once (concurrent
// delete_vhost / add_vhost calls, each stopping or starting dozens of quorum queues, wedged RabbitMQ 3.10 here).
//
// Through the management API when it answers: one HTTP call each, where rabbitmqctl starts an Erlang VM per call
// (1-2 s each, three per package) and re-executes itself through `su`, so a timed-out call's VM escaped
// `timeout` and, holding the test run's stderr, kept turbo waiting for output until CI's limit.
// rabbitmqctl is the fallback for a broker without the management plugin.
"use strict";
const { spawnSync } = require("node:child_process");

const API = process.env.TEST_RABBITMQ_API || "http://127.0.0.1:15672/api";
const AUTH = "Basic " + Buffer.from(process.env.TEST_RABBITMQ_API_AUTH || "guest:guest").toString("base64");
const CALL_MS = 120_000;

async function api(method, path, body) {
  const res = await fetch(API + path, {
    method,
    headers: { authorization: AUTH, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(CALL_MS),
  });
  if (!res.ok && !(method === "DELETE" && res.status === 404))
    throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

async function apiAnswers() {
  try {
    const res = await fetch(API + "/overview", {
      headers: { authorization: AUTH },
      signal: AbortSignal.timeout(3000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

function rabbitmqctl(args, mayFail = false) {
  // Output captured, never inherited: a VM that outlives the call must not hold the test run's stdout/stderr.
  // -k: a VM that ignores the TERM is killed 5 s later.
  const r = spawnSync("timeout", ["-k", "5", String(CALL_MS / 1000), "rabbitmqctl", "-q", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    timeout: CALL_MS + 15_000,
    killSignal: "SIGKILL",
  });
  if (r.status !== 0 && !mayFail)
    throw new Error(`rabbitmqctl ${args.join(" ")}: ${r.error?.message ?? r.stderr?.trim() ?? r.status}`);
}

async function main(vhost, only) {
  if (!vhost) throw new Error("usage: rabbit-vhost.js <vhost> [--delete]");
  const v = encodeURIComponent(vhost);
  if (await apiAnswers()) {
    await api("DELETE", `/vhosts/${v}`);
    if (only === "--delete") return;
    await api("PUT", `/vhosts/${v}`);
    await api("PUT", `/permissions/${v}/guest`, { configure: ".*", write: ".*", read: ".*" });
    return;
  }
  rabbitmqctl(["delete_vhost", vhost], true);
  if (only === "--delete") return;
  rabbitmqctl(["add_vhost", vhost]);
  rabbitmqctl(["set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"]);
}

main(process.argv[2], process.argv[3]).then(
  () => process.exit(0),
  (e) => {
    console.error(e.message);
    process.exit(1);
  },
);
