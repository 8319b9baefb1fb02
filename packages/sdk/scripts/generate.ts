// Writes openapi.json (the document public-api serves at /v1/openapi.json, built offline: no server needed) and
// src/generated/schema.d.ts (its types, by openapi-typescript). `pnpm --filter @emailsvc/sdk generate`.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
// The contracts package is CommonJS (its TypeScript source under the development condition): its default
// import is its exports object.
import contracts from "@emailsvc/contracts";
import { renderOpenApiJson, renderSchemaTypes } from "./schema.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const jsonFile = path.join(root, "openapi.json");
const json = renderOpenApiJson(contracts.publicOpenApi());
// formatted as the repository's prettier wants it; the drift test compares the parsed document, not the bytes
writeFileSync(jsonFile, await format(json, { ...(await resolveConfig(jsonFile)), filepath: jsonFile }));
writeFileSync(path.join(root, "src/generated/schema.d.ts"), await renderSchemaTypes(json));
console.log("wrote openapi.json and src/generated/schema.d.ts");
