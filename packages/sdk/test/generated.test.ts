// The committed openapi.json and src/generated/schema.d.ts must be what `pnpm --filter @emailsvc/sdk generate`
// makes from the document public-api serves now: a route or schema changed in packages/contracts without
// regenerating fails here, naming the command to run.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { publicOpenApi } from "@emailsvc/contracts";

const root = path.resolve(__dirname, "..");
const HINT = "run `pnpm --filter @emailsvc/sdk generate` and commit the result";

/** The types rendered afresh (nothing written): of the served document, or of `doc`. */
function renderTypes(doc?: unknown): string {
  const r = spawnSync(
    process.execPath,
    ["--conditions=development", "--import", "tsx", "scripts/render-types.ts", ...(doc ? ["--stdin"] : [])],
    { cwd: root, encoding: "utf8", input: doc ? JSON.stringify(doc) : "", maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`render-types failed: ${r.stderr}`);
  return r.stdout;
}

const committedTypes = () => readFileSync(path.join(root, "src/generated/schema.d.ts"), "utf8");

describe("the generated types", () => {
  it("openapi.json is the document public-api serves", () => {
    const committed = JSON.parse(readFileSync(path.join(root, "openapi.json"), "utf8")) as unknown;
    // JSON round trip: the served document is JSON too (undefined fields vanish)
    const served = JSON.parse(JSON.stringify(publicOpenApi())) as unknown;
    expect({ committed, hint: HINT }).toEqual({ committed: served, hint: HINT });
  });

  it("src/generated/schema.d.ts is openapi-typescript's output for that document", () => {
    expect({ types: committedTypes(), hint: HINT }).toEqual({ types: renderTypes(), hint: HINT });
  });

  it("notices a drift (the comparison can fail)", () => {
    const doc = structuredClone(publicOpenApi()) as { paths: Record<string, unknown> };
    doc.paths["/v1/new-route"] = {
      get: { operationId: "getV1NewRoute", responses: { 200: { description: "new" } } },
    };
    const drifted = renderTypes(doc);
    expect(drifted).toContain('"/v1/new-route"');
    expect(drifted).not.toBe(committedTypes());
  });
});
