// Validates an OpenAPI document file against the official 3.x schemas. An ES module (the validator is ESM
// only), so jest runs it as a child process. Prints the result as JSON; exit 1 when invalid.
import { Validator } from "@seriousme/openapi-schema-validator";

const validator = new Validator();
const result = await validator.validate(process.argv[2]);
process.stdout.write(JSON.stringify({ version: validator.version, ...result }));
process.exit(result.valid ? 0 : 1);
