// Each boundary of ARCHITECTURE.md, broken on purpose in a sample linted as a file of this repository with the
// repository's ESLint config: the rule must fire. Allowed imports beside them show the rules are not blanket.
import { spawnSync } from "node:child_process";
import path from "node:path";

const check = path.resolve(__dirname, "../check.mjs");
const root = path.resolve(__dirname, "../../..");

interface Case {
  file: string;
  code: string;
}

function lint(cases: Case[]): string[][] {
  const r = spawnSync(process.execPath, [check], {
    input: JSON.stringify(cases),
    encoding: "utf8",
    cwd: root,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as string[][];
}

const imp = (spec: string) => `import * as x from "${spec}";\nexport const y = x;\n`;

const violations: [string, Case][] = [
  [
    "an app importing another app by name",
    { file: "apps/public-api/src/sends/a.ts", code: imp("@emailsvc/send-worker") },
  ],
  [
    "an app importing another app by a relative path",
    { file: "apps/public-api/src/sends/a.ts", code: imp("../../../send-worker/src/deps") },
  ],
  ["an app importing Prisma", { file: "apps/send-worker/src/repos/a.ts", code: imp("@prisma/client") }],
  ["an app importing pg", { file: "apps/scheduler/src/use-cases/a.ts", code: imp("pg") }],
  ["a package other than db importing pg", { file: "packages/http/src/a.ts", code: imp("pg") }],
  ["an app importing amqplib", { file: "apps/send-worker/src/consumers/a.ts", code: imp("amqplib") }],
  ["the db package importing amqplib", { file: "packages/db/src/a.ts", code: imp("amqplib") }],
  [
    "an app importing the AWS SDK",
    { file: "apps/domain-service/src/a.ts", code: imp("@aws-sdk/client-sesv2") },
  ],
  [
    "messaging importing the AWS SDK",
    { file: "packages/messaging/src/a.ts", code: imp("@aws-sdk/client-s3") },
  ],
  [
    "domain code importing the db package",
    { file: "apps/public-api/src/domain/a.ts", code: imp("@emailsvc/db") },
  ],
  [
    "domain code importing the HTTP package",
    { file: "apps/send-worker/src/domain/a.ts", code: imp("@emailsvc/http") },
  ],
  [
    "a feature's domain code reading files",
    { file: "apps/domain-service/src/identities/domain/a.ts", code: imp("node:fs") },
  ],
  [
    "domain code importing Redis",
    { file: "apps/public-api/src/domain/scheduling/a.ts", code: imp("ioredis") },
  ],
  [
    "a feature's domain code importing the db package",
    { file: "apps/public-api/src/sends/domain/a.ts", code: imp("@emailsvc/db") },
  ],
];

const allowed: [string, Case][] = [
  ["db importing pg", { file: "packages/db/src/a.ts", code: imp("pg") }],
  ["messaging importing amqplib", { file: "packages/messaging/src/a.ts", code: imp("amqplib") }],
  [
    "provider importing the AWS SDK",
    { file: "packages/provider/src/a.ts", code: imp("@aws-sdk/client-sesv2") },
  ],
  [
    "an app importing its own code",
    { file: "apps/public-api/src/sends/a.ts", code: imp("../domain/rendered") },
  ],
  ["an app importing a package", { file: "apps/public-api/src/sends/a.ts", code: imp("@emailsvc/sending") }],
  [
    "domain code importing contracts",
    { file: "apps/public-api/src/domain/a.ts", code: imp("@emailsvc/contracts") },
  ],
  ["a test reading the database", { file: "apps/send-worker/test/a.int.test.ts", code: imp("pg") }],
  [
    "the simulator importing the AWS SDK",
    { file: "tools/provider-simulator/src/a.ts", code: imp("@aws-sdk/client-s3") },
  ],
];

describe("import boundaries (ARCHITECTURE.md)", () => {
  const results = lint([...violations, ...allowed].map(([, c]) => c));

  it.each(violations.map(([name], i) => [name, i] as const))("refuses %s", (_name, i) => {
    expect(results[i]!.some((r) => r === "no-restricted-imports" || r === "boundaries/no-cross-app")).toBe(
      true,
    );
  });

  it.each(allowed.map(([name], i) => [name, violations.length + i] as const))("allows %s", (_name, i) => {
    expect(
      results[i]!.filter((r) => r === "no-restricted-imports" || r === "boundaries/no-cross-app"),
    ).toEqual([]);
  });
});

// Tenant scoping (issue 22): a ProjectId comes from a trusted source, never from a type assertion.
const brand = (expr: string) =>
  `import { projectIdOf, type ProjectId } from "@emailsvc/contracts";\nexport const f = (s: string) => ${expr};\nexport const g = projectIdOf;\n`;

const brandViolations: [string, Case][] = [
  ["an app asserting a ProjectId", { file: "apps/public-api/src/sends/a.ts", code: brand("s as ProjectId") }],
  [
    "a repository asserting a nullable ProjectId",
    { file: "packages/db/src/a.ts", code: brand("s as ProjectId | null") },
  ],
  [
    "a double assertion through unknown",
    { file: "apps/send-worker/src/a.ts", code: brand("s as unknown as ProjectId") },
  ],
  [
    "an angle-bracket assertion in a test",
    { file: "apps/scheduler/test/a.int.test.ts", code: brand("<ProjectId>s") },
  ],
  ["a benchmark asserting a ProjectId", { file: "bench/x/run.ts", code: brand("s as ProjectId") }],
];

const brandAllowed: [string, Case][] = [
  ["the brand's own module", { file: "packages/contracts/src/project-id.ts", code: brand("s as ProjectId") }],
  ["the named conversion", { file: "apps/public-api/src/sends/a.ts", code: brand("projectIdOf(s)") }],
  [
    "other assertions",
    { file: "apps/public-api/src/sends/a.ts", code: brand("(s as unknown as string[]).length") },
  ],
];

/** Each violation must break `rule`; each allowed sample must not. */
function describeRule(title: string, rule: string, violations: [string, Case][], allowed: [string, Case][]) {
  describe(title, () => {
    const results = lint([...violations, ...allowed].map(([, c]) => c));

    it.each(violations.map(([name], i) => [name, i] as const))("refuses %s", (_name, i) => {
      expect(results[i]).toContain(rule);
    });

    it.each(allowed.map(([name], i) => [name, violations.length + i] as const))("allows %s", (_name, i) => {
      expect(results[i]).not.toContain(rule);
    });
  });
}

describeRule("ProjectId assertions (issue 22)", "no-restricted-syntax", brandViolations, brandAllowed);

// SQL lives in repositories (issue 44): in an app's sources only a `*.repo.ts` runs a statement or holds the pool.
const handler = (body: string) =>
  `import type { Db } from "@emailsvc/db";\nexport async function handle(db: Db, id: string) {\n  ${body}\n}\n`;
const QUERY = `return (await db.pool.query("SELECT 1 FROM projects WHERE id = $1", [id])).rowCount;`;

const sqlViolations: [string, Case][] = [
  [
    "a route handler holding a query",
    { file: "apps/public-api/src/admin/a.routes.ts", code: handler(QUERY) },
  ],
  [
    "a use case querying a transaction's client",
    {
      file: "apps/public-api/src/leads/a.ts",
      code: `import type { PoolClient } from "@emailsvc/db";\nexport const f = (c: PoolClient) => c.query<{ n: number }>("SELECT 1");\n`,
    },
  ],
  [
    "a loop handing the raw pool to a package",
    {
      file: "apps/scheduler/src/use-cases/a.ts",
      code: handler("return settle(db.pool, id);\n  function settle(..._a: unknown[]) {}"),
    },
  ],
  [
    "a consumer using Prisma's raw SQL",
    {
      file: "apps/webhook-dispatcher/src/consumers/a.consumer.ts",
      code: handler("return db.prisma.$queryRaw`SELECT ${id}`;"),
    },
  ],
];

const sqlAllowed: [string, Case][] = [
  ["a repository of the app", { file: "apps/inbound-mail/src/repos/a.repo.ts", code: handler(QUERY) }],
  ["a repository of packages/db", { file: "packages/db/src/a.repo.ts", code: handler(QUERY) }],
  ["an app's integration test", { file: "apps/public-api/test/a.int.test.ts", code: handler(QUERY) }],
  [
    "a route reading its request's query string and calling a repository",
    {
      file: "apps/public-api/src/admin/a.routes.ts",
      code: `import { type Db, findProjectId } from "@emailsvc/db";\nexport const f = (db: Db, req: { query: { id: string } }) => findProjectId(db, req.query.id);\n`,
    },
  ],
];

describeRule(
  "SQL only in repositories (issue 44)",
  "boundaries/sql-in-repositories",
  sqlViolations,
  sqlAllowed,
);

describe("the repository itself", () => {
  it("keeps every boundary", () => {
    const r = spawnSync(process.execPath, [check, "--tree"], { encoding: "utf8", cwd: root });
    if (r.status !== 0) throw new Error(r.stderr);
    expect(JSON.parse(r.stdout)).toEqual([]);
  }, 120_000);
});
