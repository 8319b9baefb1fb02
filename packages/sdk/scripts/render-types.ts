// Prints the types `generate` would write, without writing anything: of the served document, or (`--stdin`) of
// the document given on stdin. The drift test runs it as a child process (openapi-typescript needs ESM-only
// modules that jest's CommonJS runtime cannot load).
import { readFileSync } from "node:fs";
import contracts from "@emailsvc/contracts";
import { renderOpenApiJson, renderSchemaTypes } from "./schema.js";

const json = process.argv.includes("--stdin")
  ? readFileSync(0, "utf8")
  : renderOpenApiJson(contracts.publicOpenApi());
process.stdout.write(await renderSchemaTypes(json));
