// One lint setup for the whole workspace: typescript-eslint's recommended rules (syntax-level, fast);
// type checking itself is `tsc --noEmit` per package (turbo `lint`), formatting is prettier.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import {
  boundariesPlugin,
  PROJECT_ID_MODULE,
  projectIdAssertions,
  restrict,
  restricted,
} from "./tools/eslint-boundaries/index.mjs";

const { postgres, amqp, aws, apps, io } = restrict;

const code = ["apps/**/*.ts", "packages/**/*.ts", "tools/**/*.ts"];

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/dist-test/**", "**/src/generated/**", ".local/**", "**/coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-require-imports": "off",
      "no-console": "off",
    },
  },
  {
    // Tests poke at loosely typed JSON answers; `any` there is a convenience, not a design choice.
    files: ["**/test/**/*.ts", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Only env.ts reads process.env (STYLE.md habit 9); tools, tests and benchmarks are exempt.
    files: ["apps/*/src/**/*.ts", "packages/*/src/**/*.ts"],
    ignores: ["**/env.ts", "**/*.test.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "read env in env.ts only" },
      ],
    },
  },
  {
    // Tenant scoping (issue 22): a ProjectId is never asserted from a string outside the module that defines it
    // (tools/eslint-boundaries; its test proves the rule fires).
    files: [...code, "bench/**/*.ts"],
    ignores: [PROJECT_ID_MODULE],
    rules: { "no-restricted-syntax": ["error", ...projectIdAssertions] },
  },
  // ARCHITECTURE.md's four boundaries (tools/eslint-boundaries; its tests prove each one fails on a violation).
  // A later block replaces an earlier one's `no-restricted-imports` for the files it matches, so each block
  // lists every group that applies there.
  {
    files: code,
    plugins: { boundaries: boundariesPlugin },
    rules: {
      "boundaries/no-cross-app": "error",
      "no-restricted-imports": restricted(postgres, amqp, aws, apps),
    },
  },
  { files: ["packages/db/**/*.ts"], rules: { "no-restricted-imports": restricted(amqp, aws, apps) } },
  {
    files: ["packages/messaging/**/*.ts"],
    rules: { "no-restricted-imports": restricted(postgres, aws, apps) },
  },
  {
    files: ["packages/provider/**/*.ts"],
    rules: { "no-restricted-imports": restricted(postgres, amqp, apps) },
  },
  {
    // Pure logic: besides the boundaries above, no I/O package at all. `domain/` at any depth: an app's own, a
    // feature's (`src/<feature>/domain/`), or one inside a feature's part.
    files: ["apps/*/src/**/domain/**/*.ts"],
    rules: { "no-restricted-imports": restricted(postgres, amqp, aws, apps, io) },
  },
  {
    // SQL lives in repositories (docs/architecture.md, "SQL"): in an app's sources only a `*.repo.ts` runs a
    // statement or touches the raw pool (tools/eslint-boundaries; its test proves the rule fires). Tests check
    // the real thing from outside and may read the database.
    files: ["apps/*/src/**/*.ts"],
    ignores: ["**/*.repo.ts", "**/*.test.ts"],
    plugins: { boundaries: boundariesPlugin },
    rules: { "boundaries/sql-in-repositories": "error" },
  },
  {
    // The dashboard is a browser app; its generate script reads public-api's admin OpenAPI document at build time
    // (to type the admin client), which is no runtime import of another app.
    files: ["apps/dashboard/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ["apps/dashboard/scripts/generate-api.ts"],
    rules: { "boundaries/no-cross-app": "off" },
  },
  {
    // Tests, the provider simulator and benchmarks check the real thing from outside: they may read the
    // database, the broker and the SDK directly. Apps still never import other apps.
    files: ["**/test/**/*.ts", "**/*.test.ts", "tools/provider-simulator/**/*.ts", "bench/**/*.ts"],
    rules: { "no-restricted-imports": restricted(apps) },
  },
);
