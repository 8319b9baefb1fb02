// Runs once after a package's test run: deletes the run's RabbitMQ vhost (global-setup made it). Left behind, every
// package's vhost kept its queues: RabbitMQ 3.10 gives each queue file handles out of a budget set by its ulimit
// (927 of 1,024 here), and with 770 queues over the packages' and benchmarks' vhosts it refused every new AMQP
// connection, on every vhost, until queues went away. The database stays, to look at after a failure.
// It first SIGKILLs the services the run's tests started (killOnExit) that are still running: a suite whose
// beforeAll failed, or that timed out, never stopped its stack, and the next run met it.
const fs = require("node:fs");
const { changeVhost } = require("./vhosts");

function startTime(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function killLeftChildren() {
  const file = process.env.TEST_CHILDREN_FILE;
  if (!file || !fs.existsSync(file)) return;
  const left = new Map();
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("+")) {
      const [pid, started] = line.slice(1).split(" ");
      left.set(pid, started);
    } else if (line.startsWith("-")) left.delete(line.slice(1));
  }
  for (const [pid, started] of left) {
    // the same process, not another that got its pid since
    if (startTime(pid) !== started) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      console.warn(`[teardown] killed a service a test left running (pid ${pid})`);
    } catch {
      /* gone meanwhile */
    }
  }
  fs.rmSync(file, { force: true });
}

module.exports = async function globalTeardown() {
  killLeftChildren();
  const vhost = process.env.TEST_RABBITMQ_VHOST;
  if (!vhost || process.env.TEST_KEEP_VHOST === "1") return;
  try {
    changeVhost(vhost, { remove: true });
  } catch (err) {
    // the run's own result stands; the next set-up recreates the vhost anyway
    console.warn(String(err instanceof Error ? err.message : err));
  }
};
