import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { SERVICES } from "../src/services";

const root = path.resolve(__dirname, "../../..");
const file = path.join(root, "docker-compose.yml");

/** `docker-compose` (v1, what .ci/run installs) or the `docker compose` plugin, whichever answers. */
function composeCommand(): string[] | undefined {
  for (const cmd of [["docker-compose"], ["docker", "compose"]]) {
    const r = spawnSync(cmd[0]!, [...cmd.slice(1), "version"], { encoding: "utf8" });
    if (r.status === 0) return cmd;
  }
  return undefined;
}

const composeCmd = composeCommand();
// A developer's `pnpm test` need not have Compose installed; CI must (.ci/run installs the Debian package).
const ci = process.env.CI === "true";
if (!composeCmd && !ci) {
  console.log(
    "compose.int.test: skipping `config -q`, neither docker-compose nor `docker compose` is installed",
  );
}

describe("docker-compose.yml (validated offline; no Docker engine here)", () => {
  (composeCmd || ci ? it : it.skip)("passes `docker-compose config -q`", () => {
    if (!composeCmd) {
      throw new Error("docker-compose is not installed (.ci/run installs the Debian package docker-compose)");
    }
    const r = spawnSync(composeCmd[0]!, [...composeCmd.slice(1), "-f", file, "config", "-q"], {
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("has the infrastructure, the simulator, the gateway, the migration job and all nine services with healthchecks", () => {
    const compose = parse(fs.readFileSync(file, "utf8"), { merge: true }) as {
      services: Record<
        string,
        {
          healthcheck?: unknown;
          build?: { target?: string; args?: { SERVICE?: string } };
          depends_on?: Record<string, { condition: string }>;
          cpu_shares?: number;
        }
      >;
    };
    for (const name of ["postgres", "rabbitmq", "redis", "s3", "simulator", "gateway", "migrate"])
      expect(compose.services[name]).toBeDefined();
    for (const s of SERVICES) {
      const svc = compose.services[s.name]!;
      expect(svc.healthcheck).toBeDefined();
      expect(svc.build).toMatchObject({ target: "runtime", args: { SERVICE: s.name } });
      expect(svc.depends_on?.migrate?.condition).toBe("service_completed_successfully");
      // the queue workers at a lower CPU weight than the default 1024, as `pnpm start` runs them niced
      expect({ service: s.name, cpu_shares: svc.cpu_shares }).toEqual({
        service: s.name,
        cpu_shares: s.background ? 256 : undefined,
      });
    }
    expect(compose.services.simulator!.cpu_shares).toBe(256);
  });
});
