import { spawnSync } from "node:child_process";
import path from "node:path";
import { renderKustomization, type K8sObject } from "../src/kustomize";
import { SERVICES } from "../src/services";

const k8s = path.resolve(__dirname, "../../../infra/k8s");
const overlays = ["base", "overlays/dev", "overlays/prod"];

/** Validates with kubernetes-models (ESM-only) in a child node process; returns the errors. */
function validate(objects: K8sObject[]): string[] {
  const r = spawnSync(process.execPath, [path.join(__dirname, "validate-k8s.mjs")], {
    input: JSON.stringify(objects),
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as string[];
}

describe.each(overlays)("kustomize %s", (overlay) => {
  const objects = renderKustomization(path.join(k8s, overlay));
  const find = (kind: string, name: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name);

  it("renders manifests that each validate against the Kubernetes schema", () => {
    expect(objects.length).toBeGreaterThan(36);
    expect(validate(objects)).toEqual([]);
  });

  it.each(SERVICES.map((s) => s.name))(
    "%s has a Deployment with probes, resources and preStop, a Service, an HPA and a PDB",
    (name) => {
      const d = find("Deployment", name) as unknown as {
        spec: {
          template: {
            spec: { containers: Record<string, unknown>[]; terminationGracePeriodSeconds: number };
          };
        };
      };
      expect(d).toBeDefined();
      const c = d.spec.template.spec.containers[0] as {
        livenessProbe: { httpGet: { path: string } };
        readinessProbe: { httpGet: { path: string } };
        resources: { requests: Record<string, string>; limits: Record<string, string> };
        lifecycle: { preStop: unknown };
      };
      expect(c.livenessProbe.httpGet.path).toBe("/healthz");
      expect(c.readinessProbe.httpGet.path).toBe("/readyz");
      expect(c.resources.requests.cpu).toBeTruthy();
      expect(c.resources.requests.memory).toBeTruthy();
      expect(c.resources.limits.cpu).toBeTruthy();
      expect(c.resources.limits.memory).toBeTruthy();
      expect(c.lifecycle.preStop).toBeDefined();
      expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
      expect(find("Service", name)).toBeDefined();
      expect(find("HorizontalPodAutoscaler", name)).toBeDefined();
      expect(find("PodDisruptionBudget", name)).toBeDefined();
    },
  );

  it("routes only the public prefixes through the Ingress", () => {
    const ingress = objects.find((o) => o.kind === "Ingress") as unknown as {
      spec: { rules: { http: { paths: { path: string; backend: { service: { name: string } } }[] } }[] };
    };
    const routes = ingress.spec.rules
      .flatMap((r) => r.http.paths.map((p) => `${p.path} ${p.backend.service.name}`))
      .sort();
    const expected = SERVICES.flatMap((s) => s.publicPrefixes.map((p) => `${p} ${s.name}`)).sort();
    expect(routes).toEqual(expected);
    for (const internal of ["/send-email", "/trigger-campaign", "/trigger-job", "/admin"]) {
      expect(routes.some((r) => internal.startsWith(r.split(" ")[0]!))).toBe(false);
    }
  });

  it("has a migration Job", () => {
    expect(find("Job", "emailsvc-migrate")).toBeDefined();
  });
});

describe("overlays", () => {
  it("prod pins image tags and raises send-worker resources; dev shrinks the autoscalers", () => {
    const prod = renderKustomization(path.join(k8s, "overlays/prod"));
    const sw = prod.find((o) => o.kind === "Deployment" && o.metadata.name === "send-worker") as unknown as {
      spec: {
        template: { spec: { containers: { image: string; resources: { requests: { cpu: string } } }[] } };
      };
    };
    expect(sw.spec.template.spec.containers[0]!.image).toBe("emailsvc/send-worker:1.0.0");
    expect(sw.spec.template.spec.containers[0]!.resources.requests.cpu).toBe("500m");
    const dev = renderKustomization(path.join(k8s, "overlays/dev"));
    const hpas = dev.filter((o) => o.kind === "HorizontalPodAutoscaler") as unknown as {
      spec: { minReplicas: number };
    }[];
    expect(hpas.every((h) => h.spec.minReplicas === 1)).toBe(true);
    expect(dev.every((o) => o.kind === "Namespace" || o.metadata.namespace === "emailsvc-dev")).toBe(true);
  });
});
