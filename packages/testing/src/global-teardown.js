// Runs once after a package's test run: deletes the run's RabbitMQ vhost (global-setup made it). Left behind, every
// package's vhost kept its queues: RabbitMQ 3.10 gives each queue file handles out of a budget set by its ulimit
// (927 of 1,024 here), and with 770 queues over the packages' and benchmarks' vhosts it refused every new AMQP
// connection, on every vhost, until queues went away. The database stays, to look at after a failure.
// It first SIGKILLs the services the run's tests started (killOnExit) that are still running: a suite whose
// beforeAll failed, or that timed out, never stopped its stack, and the next run met it.
const fs = require("node:fs");
const { killLeftChildren } = require("./left-children");
const { changeVhost } = require("./vhosts");

module.exports = async function globalTeardown() {
  killLeftChildren("a test");
  const file = process.env.TEST_CHILDREN_FILE;
  if (file) fs.rmSync(file, { force: true });
  const vhost = process.env.TEST_RABBITMQ_VHOST;
  if (!vhost || process.env.TEST_KEEP_VHOST === "1") return;
  try {
    changeVhost(vhost, { remove: true });
  } catch (err) {
    // the run's own result stands; the next set-up recreates the vhost anyway
    console.warn(String(err instanceof Error ? err.message : err));
  }
};
