import fs from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
};

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path: string; target?: { kind?: string; name?: string } }[];
}

function readDocs(file: string): K8sObject[] {
  return parseAllDocuments(fs.readFileSync(file, "utf8"))
    .map((d) => d.toJS() as K8sObject | null)
    .filter((d): d is K8sObject => d !== null);
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Strategic-merge subset: objects merge deeply, lists of named items (containers, ports, env) merge by name. */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (isObj(base) && isObj(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = k in base ? strategicMerge(base[k], v) : v;
    return out;
  }
  if (
    Array.isArray(base) &&
    Array.isArray(patch) &&
    patch.every((p) => isObj(p) && typeof p.name === "string")
  ) {
    const out = base.map((b) => {
      const p = patch.find((x) => isObj(b) && (x as { name: string }).name === b.name);
      return p ? strategicMerge(b, p) : b;
    });
    for (const p of patch)
      if (!base.some((b) => isObj(b) && b.name === (p as { name: string }).name)) out.push(p);
    return out;
  }
  return patch;
}

/**
 * Renders a kustomization the way `kustomize build` does for the features we use (resources, namespace,
 * images, strategic-merge patches with a kind/name target), so manifests are validated offline in tests.
 */
export function renderKustomization(dir: string): K8sObject[] {
  const k = (parseAllDocuments(fs.readFileSync(path.join(dir, "kustomization.yaml"), "utf8"))[0]!.toJS() ??
    {}) as Kustomization;
  let objects: K8sObject[] = [];
  for (const r of k.resources ?? []) {
    const p = path.join(dir, r);
    objects.push(...(fs.statSync(p).isDirectory() ? renderKustomization(p) : readDocs(p)));
  }
  for (const patch of k.patches ?? []) {
    for (const doc of readDocs(path.join(dir, patch.path))) {
      const kind = patch.target?.kind ?? doc.kind;
      const name = patch.target?.name ?? (patch.target?.kind ? undefined : doc.metadata.name);
      objects = objects.map((o) => {
        if (o.kind !== kind || (name && o.metadata.name !== name)) return o;
        const { metadata: _m, ...rest } = doc;
        return strategicMerge(o, rest) as K8sObject;
      });
    }
  }
  for (const img of k.images ?? []) {
    const json = (o: K8sObject) => JSON.stringify(o);
    objects = objects.map((o) => {
      if (!json(o).includes(`"image":"${img.name}:`) && !json(o).includes(`"image":"${img.name}"`)) return o;
      const replaced = json(o).replace(
        new RegExp(`"image":"${img.name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(:[^"]*)?"`, "g"),
        (_m, tag: string | undefined) =>
          `"image":"${img.newName ?? img.name}${img.newTag ? `:${img.newTag}` : (tag ?? "")}"`,
      );
      return JSON.parse(replaced) as K8sObject;
    });
  }
  if (k.namespace) {
    objects = objects.map((o) =>
      o.kind === "Namespace" ? o : { ...o, metadata: { ...o.metadata, namespace: k.namespace } },
    );
  }
  return objects;
}
