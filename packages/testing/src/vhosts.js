// The package's RabbitMQ vhost, made by global-setup and removed by global-teardown. Vhost changes run one at a
// time across the packages turbo runs at once: see rabbit-vhost.js. flock -o: the lock is not inherited by anything
// the call leaves behind. Output is captured, never inherited, and a call that hangs fails with the broker's answer.
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const LOCK = "/tmp/emailsvc-test-rabbitmq-vhosts.lock";

/** Recreates `vhost` empty (guest may use it), or with `{ remove: true }` deletes it. */
function changeVhost(vhost, { remove = false } = {}) {
  const script = path.join(__dirname, "rabbit-vhost.js");
  const r = spawnSync(
    "flock",
    ["-o", "-w", "600", LOCK, process.execPath, script, vhost, ...(remove ? ["--delete"] : [])],
    { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", timeout: 15 * 60_000, killSignal: "SIGKILL" },
  );
  if (r.status !== 0)
    throw new Error(
      `could not ${remove ? "delete" : "recreate"} the RabbitMQ vhost ${vhost}: ${r.error?.message ?? r.stderr.trim()}`,
    );
}

module.exports = { changeVhost };
