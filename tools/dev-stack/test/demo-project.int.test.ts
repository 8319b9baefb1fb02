/**
 * `pnpm start` finds its demo project in the database it runs against, whatever .local/ still holds (issue 29).
 * Real: the whole stack start.ts runs (PostgreSQL, RabbitMQ, Redis, every service), on shifted ports, against two
 * databases of this file's own (A and B, beside this package's test database). Nothing is faked.
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { spawnTs } from "@emailsvc/testing";
import { SERVICES, withPortOffset } from "../src/services";

jest.setTimeout(600_000);

const OFFSET = 10_200;
const root = path.resolve(__dirname, "../../..");
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-demo-"));
const services = withPortOffset(SERVICES, OFFSET);
const suffixed = (suffix: string) => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_${suffix}`;
  return u.toString();
};
// start.ts creates a missing database itself (as on a fresh machine)
const dbA = suffixed("demo_a");
const dbB = suffixed("demo_b");
const nameOf = (url: string) => new URL(url).pathname.slice(1);
const demoFile = path.join(stateDir, "demo.json");

interface Run {
  facts: Record<string, string>;
  output: string;
}

/**
 * One `pnpm start` against `databaseUrl`: waits for its summary, reads demo.json, runs `whileUp` against the
 * running stack, then stops it with Ctrl-C.
 */
async function startOnce(databaseUrl: string, whileUp?: (run: Run) => Promise<void>): Promise<Run> {
  let output = "";
  // start.ts as this test's own child (spawnTs: no tsx CLI between them), so it stops the stack when this test
  // process goes away (its launcher watch), however the run ends
  const proc: ChildProcess = spawnTs("tools/dev-stack/src/start.ts", {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      STACK_PORT_OFFSET: String(OFFSET),
      STACK_STATE_DIR: stateDir,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once("exit", (c) => r(c)));
  try {
    const deadline = Date.now() + 180_000;
    while (!output.includes("Email service is up.")) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`pnpm start did not come up\n--- output ---\n${output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const run = { facts: JSON.parse(fs.readFileSync(demoFile, "utf8")) as Record<string, string>, output };
    await whileUp?.(run);
    return run;
  } finally {
    if (proc.exitCode === null) proc.kill("SIGINT");
    await exited;
  }
}

async function adminQuery<T extends object>(databaseUrl: string, sql: string): Promise<T[]> {
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

async function dropBoth(): Promise<void> {
  const admin = new URL(process.env.DATABASE_URL!);
  admin.pathname = "/postgres";
  for (const db of [dbA, dbB])
    await adminQuery(admin.toString(), `DROP DATABASE IF EXISTS "${nameOf(db)}" WITH (FORCE)`);
}

beforeAll(dropBoth);
afterAll(async () => {
  await dropBoth();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

/** A key's answer from the public API: 401 when the key is unknown, 400 (empty body) when it is accepted. */
async function keyStatus(baseUrl: string, key: string): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/send-email`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: "{}",
  });
  return res.status;
}

describe("pnpm start keeps one demo project per database (demo.json is a cache)", () => {
  let first: Run;

  it("first start creates the demo project and writes every internal address", async () => {
    first = await startOnce(dbA);
    expect(first.output).toContain(`created demo project ${first.facts.project_id}`);
    expect(first.facts.live_key).toMatch(/^sk_live_/);
    expect(first.facts.test_key).toMatch(/^sk_test_/);
    // issue 29 part 3: public-api's internal routes and campaign-dispatcher's POST /trigger-campaign
    const api = services.find((s) => s.name === "public-api")!;
    const campaigns = services.find((s) => s.name === "campaign-dispatcher")!;
    expect(first.facts.internal_url).toBe(`http://127.0.0.1:${api.internalPort}`);
    expect(first.facts.campaign_url).toBe(`http://127.0.0.1:${campaigns.internalPort}`);
    expect(first.output).toMatch(
      new RegExp(`campaign_url\\s+${first.facts.campaign_url}\\s+POST /trigger-campaign`),
    );
    expect(first.output).toMatch(
      new RegExp(`internal_url\\s+${first.facts.internal_url}\\s+POST /send-email`),
    );
  });

  it("without demo.json, the next start finds the same project and keys", async () => {
    fs.rmSync(demoFile);
    const again = await startOnce(dbA);
    expect(again.output).toContain(`reusing demo project ${first.facts.project_id}`);
    expect(again.output).not.toContain("failed");
    expect(again.facts).toEqual(first.facts);
  });

  it("another database gets its own demo project, and coming back to the first finds the first one", async () => {
    const inB = await startOnce(dbB);
    expect(inB.output).toContain(`created demo project ${inB.facts.project_id}`);
    expect(inB.facts.project_id).not.toBe(first.facts.project_id);
    // demo.json now names B's project, which database A does not have
    const backInA = await startOnce(dbA);
    expect(backInA.output).toContain(`reusing demo project ${first.facts.project_id}`);
    expect(backInA.facts).toEqual(first.facts);
    // no stray "Demo project" rows from the restarts
    const projects = await adminQuery<{ id: string }>(
      dbA,
      "SELECT id FROM projects WHERE name = 'Demo project'",
    );
    expect(projects.map((p) => p.id)).toEqual([first.facts.project_id]);
    // issue 43 item 4: each database's demo project is campaign-ready, once: example.com registered and verified
    // (one active row, however many starts), the placeholder postal address, and the printed command names it
    const campaignReady = (db: string) =>
      adminQuery<{ project_id: string; status: string; dkim_verified: boolean; postal_address: string }>(
        db,
        `SELECT d.project_id::text, d.status, d.dkim_verified, p.postal_address
           FROM domain_identities d JOIN projects p ON p.id = d.project_id
          WHERE d.domain = 'example.com' AND d.deleted_at IS NULL`,
      );
    for (const [db, projectId] of [
      [dbA, first.facts.project_id],
      [dbB, inB.facts.project_id],
    ] as const) {
      expect(await campaignReady(db)).toEqual([
        {
          project_id: projectId,
          status: "verified",
          dkim_verified: true,
          postal_address: expect.stringMatching(/^PLACEHOLDER postal address/),
        },
      ]);
    }
    expect(backInA.output).toContain(`pnpm admin campaigns create ${first.facts.project_id} `);
    expect(backInA.output).not.toContain("not campaign-ready");
  });

  it("without secrets.json the stored keys cannot be decrypted: same project, new keys that work, and says so", async () => {
    fs.rmSync(demoFile);
    fs.rmSync(path.join(stateDir, "secrets.json"));
    const statuses: Record<string, number> = {};
    const live = await startOnce(dbA, async ({ facts }) => {
      statuses.newTest = await keyStatus(facts.base_url!, facts.test_key!);
      statuses.newLive = await keyStatus(facts.base_url!, facts.live_key!);
      statuses.oldTest = await keyStatus(facts.base_url!, first.facts.test_key!);
    });
    expect(live.output).toContain(`reusing demo project ${first.facts.project_id}`);
    expect(live.output).toContain("regenerating its live and test keys");
    expect(live.facts.project_id).toBe(first.facts.project_id);
    expect(live.facts.live_key).toMatch(/^sk_live_/);
    expect(live.facts.live_key).not.toBe(first.facts.live_key);
    expect(live.facts.test_key).not.toBe(first.facts.test_key);
    // the new keys are accepted (400: the empty body, not the key), the old one is refused
    expect(statuses).toEqual({ newTest: 400, newLive: 400, oldTest: 401 });
    // the regenerated keys are the project's active ones, and stay so on the next start (no second regeneration)
    const next = await startOnce(dbA);
    expect(next.output).not.toContain("regenerating");
    expect(next.facts).toEqual(live.facts);
  });
});
