// ARCHITECTURE.md's boundaries, for eslint.config.mjs. Package boundaries are `no-restricted-imports` pattern
// groups composed per folder; the cross-app rule resolves relative paths, which no pattern can do.
import path from "node:path";

export const APP_NAMES = [
  "public-api",
  "domain-service",
  "send-worker",
  "campaign-dispatcher",
  "scheduler",
  "notification-ingest",
  "inbound-mail",
  "webhook-dispatcher",
  "shop-ingest",
  "smtp-relay",
];

export const restrict = {
  postgres: {
    group: ["@prisma/*", "prisma", "prisma/*", "pg", "pg/*", "pg-*"],
    message: "Only packages/db talks to PostgreSQL (Prisma, pg): use its repositories or its exported types.",
  },
  amqp: { group: ["amqplib", "amqplib/*"], message: "Only packages/messaging imports amqplib." },
  aws: { group: ["@aws-sdk/*"], message: "Only packages/provider imports the AWS SDK." },
  apps: {
    group: APP_NAMES.map((a) => `@emailsvc/${a}`),
    message: "Apps never import other apps: move the shared piece to a package.",
  },
  io: {
    group: [
      "ioredis",
      "express",
      "undici",
      "fs",
      "node:fs",
      "fs/*",
      "node:fs/*",
      "net",
      "node:net",
      "http",
      "node:http",
      "https",
      "node:https",
      "child_process",
      "node:child_process",
      "@emailsvc/db",
      "@emailsvc/messaging",
      "@emailsvc/http",
      "@emailsvc/provider",
      "@emailsvc/runtime",
    ],
    message: "domain/ holds pure logic: no database, broker, network, file or HTTP packages.",
  },
};

/** The one file that may assert a string into a ProjectId (it defines the brand and `projectIdOf`). */
export const PROJECT_ID_MODULE = "packages/contracts/src/project-id.ts";

/**
 * `no-restricted-syntax` selectors: a type assertion to ProjectId (`x as ProjectId`, `x as ProjectId | null`,
 * `x as unknown as ProjectId`, `<ProjectId>x`) would make a tenant id out of any string. Ids come from the API-key
 * lookup, a parsed payload, a row, or `projectIdOf` where code has checked the id itself.
 */
const ASSERTION = ":matches(TSAsExpression, TSTypeAssertion)";
const PROJECT_ID_TYPE = 'TSTypeReference[typeName.name="ProjectId"]';
const PROJECT_ID_MESSAGE =
  "Do not assert a ProjectId: take it from the auth context, a parsed payload or a row, or call projectIdOf (contracts) where the id was checked.";
export const projectIdAssertions = [
  { selector: `${ASSERTION} > ${PROJECT_ID_TYPE}.typeAnnotation`, message: PROJECT_ID_MESSAGE },
  { selector: `${ASSERTION} > .typeAnnotation ${PROJECT_ID_TYPE}`, message: PROJECT_ID_MESSAGE },
];

/** `no-restricted-imports` with the given pattern groups. */
export const restricted = (...groups) => ["error", { patterns: groups }];

/** A relative import that leaves apps/<name>/ for another app's folder. */
const noCrossApp = {
  meta: {
    type: "problem",
    messages: { crossApp: "Apps never import other apps ({{target}}): move the shared piece to a package." },
    schema: [],
  },
  create(context) {
    const file = context.filename ?? context.getFilename();
    const own = /(?:^|[\\/])apps[\\/]([^\\/]+)[\\/]/.exec(file)?.[1];
    if (!own) return {};
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== "string" || !spec.startsWith(".")) return;
      const resolved = path.resolve(path.dirname(file), spec);
      const target = /(?:^|[\\/])apps[\\/]([^\\/]+)(?:[\\/]|$)/.exec(resolved)?.[1];
      if (target && target !== own)
        context.report({ node: node.source, messageId: "crossApp", data: { target } });
    };
    return { ImportDeclaration: check, ExportAllDeclaration: check, ExportNamedDeclaration: check };
  },
};

/**
 * SQL lives in repository files (docs/architecture.md, "SQL"): in an app, only a `*.repo.ts` runs a statement.
 * Elsewhere (routes, use cases, consumers, loops) a `.query(` call, Prisma's raw SQL, or reaching for the raw
 * `pool` is refused: the code calls a repository of packages/db, or the app's own `*.repo.ts` for a table only it
 * touches. Which files it applies to is eslint.config.mjs's business (apps' sources, repositories and tests aside).
 */
const RAW_SQL = new Set(["$queryRaw", "$queryRawUnsafe", "$executeRaw", "$executeRawUnsafe"]);
const sqlInRepositories = {
  meta: {
    type: "problem",
    messages: {
      query:
        "SQL lives in repositories: move this statement to a *.repo.ts (packages/db for a shared table, the app's own repos/ for a table only it touches) and call that.",
      pool: "Apps do not hold the raw pool: pass the Db to a repository function, which uses the pool inside packages/db.",
    },
    schema: [],
  },
  create(context) {
    const name = (node) =>
      !node.computed && node.property.type === "Identifier" ? node.property.name : undefined;
    return {
      "CallExpression > MemberExpression.callee"(node) {
        if (name(node) === "query") context.report({ node: node.property, messageId: "query" });
      },
      MemberExpression(node) {
        const n = name(node);
        if (n === "pool") context.report({ node: node.property, messageId: "pool" });
        else if (n && RAW_SQL.has(n)) context.report({ node: node.property, messageId: "query" });
      },
    };
  },
};

export const boundariesPlugin = {
  rules: { "no-cross-app": noCrossApp, "sql-in-repositories": sqlInRepositories },
};
