// Runs once per package test run: gives this package its own freshly migrated database and its own
// RabbitMQ vhost, so turbo can run several packages' integration tests at the same time without them
// seeing each other's rows or queues. Env set here is inherited by the jest workers.
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { Client } = require("pg");
const { changeVhost } = require("./vhosts");

const ADMIN_URL = process.env.TEST_ADMIN_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/postgres";

async function resetDatabase(name) {
  const c = new Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${name}"`);
  } finally {
    await c.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = "/" + name;
  return url.toString();
}

module.exports = async function globalSetup(config) {
  // TEST_RUN_ID keeps two checkouts (or two people in one) testing the same package apart.
  const run = (process.env.TEST_RUN_ID || "").replace(/[^a-z0-9]/gi, "_");
  const pkg = path.basename(config.rootDir).replace(/[^a-z0-9]/gi, "_") + (run ? `_${run}` : "");
  // The services this run's tests start as child processes (killOnExit), for global-teardown to stop any left.
  process.env.TEST_CHILDREN_FILE = path.join(os.tmpdir(), `emailsvc-test-children-${pkg}.txt`);
  fs.writeFileSync(process.env.TEST_CHILDREN_FILE, "");
  if (process.env.TEST_INFRA === "none") return;
  const dbName = `emailsvc_test_${pkg}`;
  const url = await resetDatabase(dbName);
  const migrate = path.resolve(__dirname, "../../db/scripts/migrate.ts");
  const tsx = require.resolve("tsx/cli", { paths: [path.resolve(__dirname, "../../db")] });
  execFileSync(process.execPath, [tsx, migrate, "deploy"], {
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  process.env.DATABASE_URL = url;

  const vhost = `test_${pkg}`;
  changeVhost(vhost);
  process.env.RABBITMQ_URL = `amqp://guest:guest@127.0.0.1:5672/${vhost}`;
  process.env.TEST_RABBITMQ_VHOST = vhost;
  process.env.REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379/0";
};
