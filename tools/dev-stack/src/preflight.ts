import net from "node:net";

export interface Dependency {
  name: string;
  host: string;
  port: number;
  fix: string;
}

/**
 * What `pnpm start` needs running on localhost. Installing and starting them is scripts/infra.js's job (run by
 * `npm start` before this, and by .ci/run): one place for those commands, so the hint points there.
 */
const FIX =
  "node scripts/infra.js   (installs and starts it; --plan shows the commands without running them)";
export const DEPENDENCIES: Dependency[] = [
  { name: "PostgreSQL", host: "127.0.0.1", port: 5432, fix: FIX },
  { name: "RabbitMQ", host: "127.0.0.1", port: 5672, fix: FIX },
  { name: "Redis", host: "127.0.0.1", port: 6379, fix: FIX },
];

/**
 * The dependencies where DATABASE_URL, RABBITMQ_URL and REDIS_URL point (a stack on private instances, e.g.
 * bench/chaos's, which restarts them as its faults), else the default ones on localhost. A URL given names the
 * server to check, and the hint says to start that one, since scripts/infra.js only starts the default ones.
 */
export function dependenciesFor(env: NodeJS.ProcessEnv): Dependency[] {
  const urls: Record<string, { url: string | undefined; port: number }> = {
    PostgreSQL: { url: env.DATABASE_URL, port: 5432 },
    RabbitMQ: { url: env.RABBITMQ_URL, port: 5672 },
    Redis: { url: env.REDIS_URL, port: 6379 },
  };
  return DEPENDENCIES.map((d) => {
    const given = urls[d.name]!;
    if (!given.url) return d;
    const u = new URL(given.url);
    return {
      ...d,
      host: u.hostname.replace(/^\[|\]$/g, "") || d.host,
      port: u.port ? Number(u.port) : given.port,
      fix: `start the server its URL names (${u.protocol}//${u.host})`,
    };
  });
}

export function canConnect(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Returns one readable line per missing dependency (empty when all answer). */
export async function missingDependencies(deps = DEPENDENCIES): Promise<string[]> {
  const results = await Promise.all(deps.map(async (d) => ((await canConnect(d.host, d.port)) ? null : d)));
  return results
    .filter((d): d is Dependency => d !== null)
    .map((d) => `${d.name} is not answering on ${d.host}:${d.port}. Start it with:\n    ${d.fix}`);
}
