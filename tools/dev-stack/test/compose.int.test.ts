import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { SERVICES } from "../src/services";

const root = path.resolve(__dirname, "../../..");
const file = path.join(root, "docker-compose.yml");

describe("docker-compose.yml (validated offline; no Docker engine here)", () => {
  it("passes `docker-compose config -q`", () => {
    const r = spawnSync("docker-compose", ["-f", file, "config", "-q"], { encoding: "utf8" });
    if (r.error && (r.error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error("docker-compose is not installed (.ci/run installs the Debian package docker-compose)");
    }
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
    }
  });
});
