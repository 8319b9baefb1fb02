import net from "node:net";

export interface Dependency {
  name: string;
  host: string;
  port: number;
  fix: string;
}

/** What `pnpm start` needs running on localhost, with the command that starts each one. */
export const DEPENDENCIES: Dependency[] = [
  {
    name: "PostgreSQL",
    host: "127.0.0.1",
    port: 5432,
    // The stack logs in as postgres@127.0.0.1 without a password: Debian's default pg_hba.conf asks for one over
    // TCP, so the hint trusts loopback TCP (first matching line wins) before starting the cluster.
    fix:
      "sudo apt-get install -y postgresql && V=$(ls /etc/postgresql | sort -V | tail -1) && " +
      "sudo sed -i '1i host all all 127.0.0.1/32 trust\\nhost all all ::1/128 trust' /etc/postgresql/$V/main/pg_hba.conf && " +
      "sudo pg_ctlcluster --skip-systemctl-redirect $V main restart",
  },
  {
    name: "RabbitMQ",
    host: "127.0.0.1",
    port: 5672,
    fix: "sudo apt-get install -y rabbitmq-server && sudo rabbitmq-server -detached",
  },
  {
    name: "Redis",
    host: "127.0.0.1",
    port: 6379,
    fix: "sudo apt-get install -y redis-server && redis-server --daemonize yes --port 6379",
  },
];

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
