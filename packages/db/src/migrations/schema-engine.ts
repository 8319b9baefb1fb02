import fs from "node:fs";
import path from "node:path";
import { readSchemaFiles } from "./migrations-dir";
import { migrationAdapterFactory } from "./pg-adapter-factory";

/*
 * Prisma 7's `migrate` CLI needs the native schema engine, which cannot be downloaded on our machines, so
 * migrations drive the WebAssembly schema engine directly. Its `schema_engine.js` imports the .wasm as an ES
 * module (Node 20 cannot), so we load the JS glue and instantiate the .wasm ourselves.
 */

type Json = Record<string, unknown>;
export interface SchemaEngine {
  diff(params: Json): Promise<{ exitCode: number; stdout: string | null }>;
  applyMigrations(input: Json): Promise<{ appliedMigrationNames: string[] }>;
  free?(): void;
}

// Node's global WebAssembly (not in the ES lib typings we compile against).
interface Wasm {
  instantiate(
    bytes: Buffer,
    imports: Record<string, unknown>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
}
const WebAssemblyApi = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

interface EngineGlue {
  __wbg_set_wasm(exports: Record<string, unknown>): void;
  SchemaEngine: {
    new: (options: Json, log: (msg: string) => void, adapter: unknown) => Promise<SchemaEngine>;
  };
}

let gluePromise: Promise<EngineGlue> | undefined;

async function loadGlue(): Promise<EngineGlue> {
  const pkgDir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const glueUrl = `file://${path.join(pkgDir, "schema_engine_bg.js")}`;
  // A real dynamic import (not transpiled to require): the glue is an ES module.
  const bg = await (new Function("u", "return import(u)") as (u: string) => Promise<EngineGlue>)(glueUrl);
  const wasm = fs.readFileSync(path.join(pkgDir, "schema_engine_bg.wasm"));
  const { instance } = await WebAssemblyApi.instantiate(wasm, { "./schema_engine_bg.js": bg });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
  return bg;
}

export async function createSchemaEngine(opts: {
  url: string;
  schemaPath: string;
  log?: (msg: string) => void;
}): Promise<SchemaEngine> {
  gluePromise ??= loadGlue();
  const glue = await gluePromise;
  return glue.SchemaEngine.new(
    { datamodels: readSchemaFiles(opts.schemaPath) },
    opts.log ?? (() => undefined),
    migrationAdapterFactory(opts.url),
  );
}
