// kubernetes-models is ESM-only (jest here runs CommonJS), so validation runs in a plain node process:
// reads a JSON array of manifests on stdin, prints a JSON array of errors (empty = all valid).
import * as models from "kubernetes-models";

const input = JSON.parse(
  await new Promise((resolve) => {
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => resolve(s));
  }),
);
const errors = [];
for (const o of input) {
  const group = o.apiVersion.includes("/") ? o.apiVersion : "v1";
  const mod = await import(`kubernetes-models/${group}`);
  const Model = mod[o.kind];
  if (!Model) {
    errors.push(`${o.kind}/${o.metadata?.name}: no model for ${o.apiVersion}`);
    continue;
  }
  try {
    new Model(o).validate();
  } catch (e) {
    errors.push(`${o.kind}/${o.metadata?.name}: ${e.message}`);
  }
}
void models;
process.stdout.write(JSON.stringify(errors));
