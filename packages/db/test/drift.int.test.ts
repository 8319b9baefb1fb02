import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SCHEMA_PATH } from "../src/migrations/migrations-dir";

// Real PostgreSQL: the migrations are replayed in a shadow database and compared with the schema folder.
// Runs the CLI in a child process: the WebAssembly engine's glue is an ES module, which jest's VM cannot import.
const pkgDir = path.resolve(__dirname, "..");
function diff(schemaPath?: string) {
  const tsx = require.resolve("tsx/cli");
  return spawnSync(
    process.execPath,
    [tsx, "scripts/migrate.ts", "diff", ...(schemaPath ? [schemaPath] : [])],
    {
      cwd: pkgDir,
      env: { ...process.env },
      encoding: "utf8",
    },
  );
}

describe("schema / migration drift", () => {
  it("prisma/schema matches prisma/migrations (run `pnpm db:migration:create <name>` after a schema change)", () => {
    const r = diff();
    expect(r.stdout.trim()).toBe("no drift");
    expect(r.status).toBe(0);
  });

  it("detects a schema change that has no migration", () => {
    // a copy of the schema folder with one column added to one of its files
    const changed = fs.mkdtempSync(path.join(os.tmpdir(), "drift-"));
    fs.cpSync(SCHEMA_PATH, changed, { recursive: true });
    const projects = path.join(changed, "projects.prisma");
    fs.writeFileSync(
      projects,
      fs
        .readFileSync(projects, "utf8")
        .replace("model Project {", 'model Project {\n  driftProbe String? @map("drift_probe")'),
    );
    const r = diff(changed);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('"drift_probe" TEXT');
  });
});
