import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { publicOpenApi, publicRoutes, publicRoutesOf } from ".";

const script = path.resolve(__dirname, "../../scripts/validate-openapi.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "openapi-"));

function validate(doc: unknown): { version?: string; valid: boolean; errors?: unknown } {
  const file = path.join(dir, `doc-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(doc));
  const r = spawnSync(process.execPath, [script, file], { encoding: "utf8" });
  return JSON.parse(r.stdout) as { version?: string; valid: boolean; errors?: unknown };
}

describe("the public OpenAPI document", () => {
  it("validates as OpenAPI 3.1", () => {
    const result = validate(publicOpenApi());
    expect(result).toMatchObject({ version: "3.1", valid: true });
  });

  it("is refused by the validator when broken (the check can fail)", () => {
    const broken = structuredClone(publicOpenApi()) as { paths: Record<string, Record<string, unknown>> };
    broken.paths["/v1/send-email"]!.post = { responses: "none" };
    expect(validate(broken).valid).toBe(false);
  });

  it("gives every operation a unique id, a service and its answers", () => {
    const doc = publicOpenApi();
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => (op as { operationId: string }).operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of publicRoutes) expect(Object.keys(r.responses).length).toBeGreaterThan(0);
  });

  it("lists the spec's routes under the services that serve them", () => {
    expect(publicRoutesOf("public-api")).toEqual(
      expect.arrayContaining(["POST /v1/send-email", "POST /v1/send-template-email", "POST /v1/send-batch"]),
    );
    expect(publicRoutesOf("domain-service")).toContain("PUT /domains/:domain/sender");
    expect(publicRoutesOf("notification-ingest")).toEqual(
      expect.arrayContaining(["POST /webhooks/provider", "GET /t/o/:id", "GET /t/c/:id"]),
    );
  });
});
