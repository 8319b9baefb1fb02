/**
 * bench/chaos's own PostgreSQL, RabbitMQ and Redis: private instances in a temp folder on ports of their own, so
 * restarting them (the run's faults) never touches the machine's shared servers, which other people's tests use.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export interface InfraPorts {
  postgres: number;
  rabbit: number;
  rabbitDist: number;
  redis: number;
}

export interface Infra {
  dir: string;
  databaseUrl: string;
  rabbitUrl: string;
  redisUrl: string;
  restartPostgres(downMs: number): Promise<void>;
  stopPostgres(): void;
  startPostgres(): Promise<void>;
  restartRabbit(): Promise<void>;
  closeRabbitConnections(): void;
  restartRedis(downMs: number): Promise<void>;
  stop(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PG_BIN = "/usr/lib/postgresql/15/bin";
const RABBIT_BIN = "/usr/lib/rabbitmq/bin";
const NODE = "chaos@localhost";

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.setTimeout(1000, () => (s.destroy(), resolve(false)));
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

async function waitPort(port: number, up: boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await portAnswers(port)) === up) return;
    await sleep(200);
  }
  throw new Error(`${what} on :${port} did not ${up ? "come up" : "go down"} within ${timeoutMs / 1000} s`);
}

export async function startInfra(dir: string, ports: InfraPorts): Promise<Infra> {
  for (const p of [ports.postgres, ports.rabbit, ports.rabbitDist, ports.redis])
    if (await portAnswers(p)) throw new Error(`port ${p} is taken: pick another --infra-port-base`);
  fs.mkdirSync(dir, { recursive: true });

  // PostgreSQL: initdb refuses root, so the cluster belongs to the postgres user (trust auth, loopback only).
  const pgData = path.join(dir, "pg");
  const asPostgres = (cmd: string, args: string[]) =>
    process.getuid?.() === 0
      ? execFileSync("runuser", ["-u", "postgres", "--", cmd, ...args], { stdio: "pipe", encoding: "utf8" })
      : execFileSync(cmd, args, { stdio: "pipe", encoding: "utf8" });
  fs.mkdirSync(pgData, { recursive: true });
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  asPostgres(`${PG_BIN}/initdb`, ["-D", pgData, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  const pgOpts =
    `-p ${ports.postgres} -k ${pgData} -c listen_addresses=127.0.0.1 -c max_connections=400 ` +
    "-c fsync=off -c shared_buffers=64MB";
  const startPostgres = async () => {
    asPostgres(`${PG_BIN}/pg_ctl`, [
      "-D",
      pgData,
      "-o",
      pgOpts,
      "-l",
      path.join(pgData, "log"),
      "-w",
      "start",
    ]);
    await waitPort(ports.postgres, true, 60_000, "PostgreSQL");
  };
  // immediate: as a crash (no checkpoint; the next start recovers from the WAL)
  const stopPostgres = () => {
    asPostgres(`${PG_BIN}/pg_ctl`, ["-D", pgData, "-m", "immediate", "-w", "stop"]);
  };
  await startPostgres();
  asPostgres(`${PG_BIN}/createdb`, ["-h", "127.0.0.1", "-p", String(ports.postgres), "emailsvc"]);

  // Redis: no persistence, as the shared one (a restart empties it: the idempotency cache is gone)
  const startRedis = async () => {
    execFileSync("redis-server", [
      ...["--port", String(ports.redis), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      ...[
        "--daemonize",
        "yes",
        "--pidfile",
        path.join(dir, "redis.pid"),
        "--logfile",
        path.join(dir, "redis.log"),
      ],
    ]);
    await waitPort(ports.redis, true, 20_000, "Redis");
  };
  const stopRedis = async () => {
    spawnSync("redis-cli", ["-p", String(ports.redis), "shutdown", "nosave"], { stdio: "ignore" });
    await waitPort(ports.redis, false, 20_000, "Redis");
  };
  await startRedis();

  // RabbitMQ: a second node of its own (name, ports, data, an empty plugin list, its own config, which the shared
  // node's /etc/rabbitmq/rabbitmq.conf would otherwise set to :5672), run as this user with its own cookie.
  const rabbitDir = path.join(dir, "rabbit");
  fs.mkdirSync(rabbitDir, { recursive: true });
  fs.writeFileSync(path.join(rabbitDir, "enabled_plugins"), "[].\n");
  fs.writeFileSync(
    path.join(rabbitDir, "rabbitmq.conf"),
    `listeners.tcp.local = 127.0.0.1:${ports.rabbit}\n`,
  );
  fs.writeFileSync(path.join(rabbitDir, "env.conf"), "");
  const rabbitEnv = {
    ...process.env,
    HOME: rabbitDir,
    RABBITMQ_CONF_ENV_FILE: path.join(rabbitDir, "env.conf"),
    RABBITMQ_CONFIG_FILE: path.join(rabbitDir, "rabbitmq.conf"),
    RABBITMQ_NODENAME: NODE,
    RABBITMQ_NODE_IP_ADDRESS: "127.0.0.1",
    RABBITMQ_NODE_PORT: String(ports.rabbit),
    RABBITMQ_DIST_PORT: String(ports.rabbitDist),
    RABBITMQ_MNESIA_BASE: path.join(rabbitDir, "mnesia"),
    RABBITMQ_LOG_BASE: path.join(rabbitDir, "log"),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(rabbitDir, "enabled_plugins"),
    RABBITMQ_PID_FILE: path.join(rabbitDir, "pid"),
    ERL_EPMD_ADDRESS: "127.0.0.1",
  };
  const ctl = (args: string[], timeoutS = 60) =>
    spawnSync(
      "timeout",
      ["-k", "5", String(timeoutS), `${RABBIT_BIN}/rabbitmqctl`, "-q", "-n", NODE, ...args],
      {
        env: rabbitEnv,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
  const startRabbit = async () => {
    execFileSync(`${RABBIT_BIN}/rabbitmq-server`, ["-detached"], { env: rabbitEnv, stdio: "ignore" });
    const deadline = Date.now() + 120_000;
    // await_startup fails at once until the node has registered with epmd
    while (ctl(["await_startup"], 30).status !== 0) {
      if (Date.now() > deadline) throw new Error(`the private RabbitMQ node ${NODE} did not start`);
      await sleep(1000);
    }
    await waitPort(ports.rabbit, true, 30_000, "RabbitMQ");
  };
  const stopRabbit = () => {
    ctl(["stop"]);
  };
  await startRabbit();

  return {
    dir,
    databaseUrl: `postgresql://postgres@127.0.0.1:${ports.postgres}/emailsvc`,
    rabbitUrl: `amqp://guest:guest@127.0.0.1:${ports.rabbit}`,
    redisUrl: `redis://127.0.0.1:${ports.redis}/0`,
    async restartPostgres(downMs) {
      stopPostgres();
      await sleep(downMs);
      await startPostgres();
    },
    stopPostgres,
    startPostgres,
    async restartRabbit() {
      stopRabbit();
      await waitPort(ports.rabbit, false, 30_000, "RabbitMQ");
      await startRabbit();
    },
    closeRabbitConnections() {
      const r = ctl(["close_all_connections", "chaos"]);
      if (r.status !== 0) throw new Error(`close_all_connections: ${r.stderr.trim()}`);
    },
    async restartRedis(downMs) {
      await stopRedis();
      await sleep(downMs);
      await startRedis();
    },
    stop() {
      for (const step of [
        () => stopRabbit(),
        () => spawnSync("redis-cli", ["-p", String(ports.redis), "shutdown", "nosave"], { stdio: "ignore" }),
        () => stopPostgres(),
      ])
        try {
          step();
        } catch {
          /* already down */
        }
    },
  };
}
