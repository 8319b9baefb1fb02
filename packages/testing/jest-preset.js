// Shared jest preset: swc for speed (type checking is `pnpm lint`), the "development" export condition so
// workspace packages resolve to their TypeScript sources, and integration infrastructure prepared once per
// package run (own PostgreSQL database, own RabbitMQ vhost) so packages can test in parallel.
const path = require("node:path");
module.exports = {
  testEnvironment: "node",
  transform: {
    "^.+\\.(t|j)sx?$": [
      require.resolve("@swc/jest"),
      { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } },
    ],
  },
  testMatch: ["<rootDir>/src/**/*.test.ts", "<rootDir>/test/**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
  globalSetup: path.join(__dirname, "src/global-setup.js"),
  globalTeardown: path.join(__dirname, "src/global-teardown.js"),
  setupFilesAfterEnv: [path.join(__dirname, "src/per-file-setup.js")],
  testTimeout: 30000,
  testEnvironmentOptions: {
    customExportConditions: ["development", "node", "require", "default"],
    globalsCleanup: "off",
  },
  maxWorkers: 1,
  // A test file that leaves a broker connection or a timer open must not hang the whole run (and CI) after its
  // tests have passed or failed; jest still reports the failures, then exits.
  forceExit: true,
};
