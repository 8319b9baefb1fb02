import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { secretProblem } from "@emailsvc/config";
import { ensureComposeEnv, parseDotenv, SECRET_NAMES } from "../src/secrets";
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

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "compose-env-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** `config -q` with only the variables of `envFile` (a developer's own .env and shell are left out). */
function composeConfig(envFile: string) {
  const env = { ...process.env };
  for (const n of SECRET_NAMES) delete env[n];
  return spawnSync(
    composeCmd![0]!,
    [...composeCmd!.slice(1), "--env-file", envFile, "-f", file, "config", "-q"],
    { encoding: "utf8", env },
  );
}

describe("docker-compose.yml (validated offline; no Docker engine here)", () => {
  const withCompose = composeCmd || ci ? it : it.skip;
  const needCompose = () => {
    if (!composeCmd)
      throw new Error("docker-compose is not installed (.ci/run installs the Debian package docker-compose)");
  };

  withCompose("passes `docker-compose config -q` with the .env `pnpm secrets` writes", () => {
    needCompose();
    const envFile = path.join(tmp, "generated.env");
    ensureComposeEnv(envFile);
    const r = composeConfig(envFile);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  withCompose("stops with a message naming the secret and `pnpm secrets` when .env lacks one", () => {
    needCompose();
    const envFile = path.join(tmp, "partial.env");
    ensureComposeEnv(envFile);
    fs.writeFileSync(
      envFile,
      fs
        .readFileSync(envFile, "utf8")
        .split("\n")
        .filter((l) => !l.startsWith("TRACKING_SECRET="))
        .join("\n"),
    );
    const r = composeConfig(envFile);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/TRACKING_SECRET/);
    expect(r.stderr).toMatch(/pnpm secrets/);
  });

  it("takes every secret from the environment with ${VAR:?…}: no default, no placeholder", () => {
    const text = fs.readFileSync(file, "utf8");
    for (const n of SECRET_NAMES)
      expect(text).toMatch(new RegExp(`\\b${n}: \\$\\{${n}:\\?[^}]*pnpm secrets[^}]*\\}`));
    expect(text).not.toMatch(/change-me|0{64}/);
  });

  it("publishes the simulator's control API and the internal port on 127.0.0.1 only", () => {
    const compose = parse(fs.readFileSync(file, "utf8"), { merge: true }) as {
      services: Record<string, { ports?: string[] }>;
    };
    const published = Object.entries(compose.services).flatMap(([name, svc]) =>
      (svc.ports ?? []).map((p) => ({ name, p })),
    );
    expect(published.find((x) => x.name === "simulator")?.p).toBe("127.0.0.1:4566:4566");
    // only the gateway faces the network
    expect(published.filter((x) => !x.p.startsWith("127.0.0.1:")).map((x) => x.name)).toEqual(["gateway"]);
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

describe("pnpm secrets (compose's .env)", () => {
  it("writes random secrets the production check accepts, mode 0600", () => {
    const envFile = path.join(tmp, "fresh.env");
    expect(ensureComposeEnv(envFile)).toEqual({ generated: [...SECRET_NAMES], kept: [] });
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    const values = parseDotenv(fs.readFileSync(envFile, "utf8"));
    for (const n of SECRET_NAMES)
      expect({ n, problem: secretProblem(n, values.get(n)) }).toEqual({ n, problem: null });
  });

  it("keeps the values it has and every other line, and replaces old placeholders", () => {
    const envFile = path.join(tmp, "existing.env");
    const key = "1f".repeat(8) + "a9c3".repeat(12);
    fs.writeFileSync(
      envFile,
      `# mine\nAPI_KEY_ENCRYPTION_KEY=${key}\nTRACKING_SECRET=change-me-tracking-secret\nOTHER=1\n`,
      {
        mode: 0o644,
      },
    );
    const { generated, kept } = ensureComposeEnv(envFile);
    expect(kept).toEqual(["API_KEY_ENCRYPTION_KEY"]);
    expect(generated).toEqual(["TRACKING_SECRET", "ADMIN_TOKEN", "INTERNAL_TOKEN"]);
    const text = fs.readFileSync(envFile, "utf8");
    const values = parseDotenv(text);
    expect(values.get("API_KEY_ENCRYPTION_KEY")).toBe(key);
    expect(values.get("OTHER")).toBe("1");
    expect(text).toContain("# mine");
    expect(text).not.toContain("change-me");
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    // a second run changes nothing
    expect(ensureComposeEnv(envFile).generated).toEqual([]);
    expect(fs.readFileSync(envFile, "utf8")).toBe(text);
  });
});

describe(".dockerignore", () => {
  const patterns = fs
    .readFileSync(path.join(root, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  // Docker's rules for these simple patterns: `*` within a name, `**/` any folders before it.
  const excluded = (p: string) =>
    patterns.some((pat) =>
      new RegExp(
        `^${pat
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*\*\//g, "@@ANY@@")
          .replace(/\*/g, "[^/]*")
          .replace(/@@ANY@@/g, "(?:.*/)?")}(?:/.*)?$`,
      ).test(p),
    );

  it.each([
    ".local",
    ".local/secrets.json",
    ".local-b/demo.json",
    ".local-bench",
    ".env",
    "tools/x/.local/demo.json",
  ])("leaves out %s", (p) => expect(excluded(p)).toBe(true));

  it("keeps the sources", () => {
    for (const p of ["apps/public-api/src/main.ts", "package.json", "infra/gateway/nginx.conf"])
      expect(excluded(p)).toBe(false);
  });
});
