// Lints code samples as if they were files of the repository, with the repository's own ESLint config, and
// prints the rule ids each one breaks. A child process of the jest test: ESLint loads its config as an ES module.
// Input (stdin): [{ "file": "apps/x/src/y.ts", "code": "…" }]. Output: [["rule-id", …], …] in the same order.
import { ESLint } from "eslint";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BOUNDARY_RULES = new Set([
  "no-restricted-imports",
  "boundaries/no-cross-app",
  "no-restricted-syntax",
  "boundaries/sql-in-repositories",
]);

if (process.argv[2] === "--tree") {
  // The repository itself: every boundary message in apps/, packages/, tools/ and bench/, as "file: message".
  const eslint = new ESLint({ cwd: root });
  const results = await eslint.lintFiles(["apps", "packages", "tools", "bench"]);
  const found = results.flatMap((r) =>
    r.messages
      .filter((m) => BOUNDARY_RULES.has(m.ruleId))
      .map((m) => `${path.relative(root, r.filePath)}: ${m.message}`),
  );
  process.stdout.write(JSON.stringify(found));
  process.exit(0);
}
const cases = JSON.parse(
  await new Promise((resolve) => {
    let s = "";
    process.stdin.on("data", (c) => (s += c)).on("end", () => resolve(s));
  }),
);
const eslint = new ESLint({ cwd: root });
const out = [];
for (const c of cases) {
  const [result] = await eslint.lintText(c.code, { filePath: path.join(root, c.file) });
  out.push(result.messages.map((m) => m.ruleId ?? m.message));
}
process.stdout.write(JSON.stringify(out));
