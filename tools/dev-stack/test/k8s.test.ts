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

  it("forces HTTPS on the Ingress, with a tls block for its host", () => {
    const ingress = objects.find((o) => o.kind === "Ingress") as unknown as {
      metadata: { annotations: Record<string, string> };
      spec: { tls?: { hosts: string[]; secretName: string }[]; rules: { host: string }[] };
    };
    expect(ingress.metadata.annotations["nginx.ingress.kubernetes.io/force-ssl-redirect"]).toBe("true");
    expect(ingress.spec.tls?.length).toBeGreaterThan(0);
    expect(ingress.spec.tls![0]!.secretName).toBeTruthy();
    for (const rule of ingress.spec.rules) expect(ingress.spec.tls![0]!.hosts).toContain(rule.host);
  });

  describe("NetworkPolicies (issue 49 item 2)", () => {
    type Peer = {
      podSelector?: { matchLabels?: Record<string, string> };
      namespaceSelector?: { matchLabels?: Record<string, string> };
    };
    type Policy = K8sObject & {
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        policyTypes: string[];
        ingress: { from?: Peer[]; ports?: { port: string | number }[] }[];
      };
    };
    type Deployment = K8sObject & {
      spec: {
        selector: { matchLabels: Record<string, string> };
        template: {
          metadata: { labels: Record<string, string> };
          spec: { containers: { ports: { name: string; containerPort: number }[] }[] };
        };
      };
    };
    const policies = objects.filter((o) => o.kind === "NetworkPolicy") as Policy[];
    const deployments = objects.filter((o) => o.kind === "Deployment") as Deployment[];
    const selects = (sel: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(sel).every(([k, v]) => labels[k] === v);
    /** The peers allowed to reach `port` (a container port's name) of a Deployment's pods, over every policy. */
    const peersOf = (d: Deployment, port: string) =>
      policies
        .filter((p) => selects(p.spec.podSelector.matchLabels, d.spec.template.metadata.labels))
        .flatMap((p) => p.spec.ingress)
        .filter((rule) => !rule.ports || rule.ports.some((x) => x.port === port))
        .flatMap((rule) => rule.from ?? [{}]);
    const namespaceOf = (peer: Peer) => peer.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"];
    const platform = { "app.kubernetes.io/part-of": "emailsvc" };

    it("every policy selects at least one Deployment's pods, and every Deployment is selected (default deny)", () => {
      expect(policies.length).toBeGreaterThan(0);
      for (const p of policies) {
        expect(p.spec.policyTypes).toEqual(["Ingress"]);
        const matched = deployments.filter((d) =>
          selects(p.spec.podSelector.matchLabels, d.spec.template.metadata.labels),
        );
        expect({ policy: p.metadata.name, matched: matched.length > 0 }).toEqual({
          policy: p.metadata.name,
          matched: true,
        });
      }
      const deny = policies.find((p) => p.spec.ingress.length === 0)!;
      for (const d of deployments) {
        expect(selects(deny.spec.podSelector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
        // the Deployment's own selector picks the labels the policies select on
        expect(selects(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
      }
    });

    it.each(SERVICES.filter((s) => s.internalPort).map((s) => s.name))(
      "%s's internal port takes only the platform's own pods and the operator namespace",
      (name) => {
        const d = deployments.find((x) => x.metadata.name === name)!;
        expect(d.spec.template.spec.containers[0]!.ports.map((p) => p.name)).toContain("internal");
        const peers = peersOf(d, "internal");
        expect(peers.length).toBe(2);
        for (const peer of peers) {
          // no empty peer (everyone), no namespaceSelector that matches every namespace
          expect(peer).not.toEqual({});
          if (peer.podSelector && !peer.namespaceSelector)
            expect(peer.podSelector.matchLabels).toEqual(platform);
          else expect(namespaceOf(peer)).toBe("emailsvc-operator");
        }
      },
    );

    it.each(SERVICES.map((s) => s.name))(
      "%s's http port takes the ingress controller (public routes only) and Prometheus",
      (name) => {
        const svc = SERVICES.find((s) => s.name === name)!;
        const d = deployments.find((x) => x.metadata.name === name)!;
        const from = peersOf(d, "http")
          .map((peer) => namespaceOf(peer) ?? "(same namespace)")
          .sort();
        expect(from).toEqual(svc.publicPrefixes.length ? ["ingress-nginx", "monitoring"] : ["monitoring"]);
        const ingressPeer = peersOf(d, "http").find((peer) => namespaceOf(peer) === "ingress-nginx");
        if (ingressPeer) expect(ingressPeer.podSelector?.matchLabels).toBeDefined();
      },
    );
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

describe("the dashboard's own Ingress (overlays/prod-dashboard, issue 45)", () => {
  const objects = renderKustomization(path.join(k8s, "overlays/prod-dashboard"));
  const ingress = (name: string) =>
    objects.find((o) => o.kind === "Ingress" && o.metadata.name === name) as any;

  it("renders manifests that each validate against the Kubernetes schema", () => {
    expect(validate(objects)).toEqual([]);
  });

  it("routes /dashboard and /admin/ to public-api's internal port on a host of its own, over TLS", () => {
    const dash = ingress("emailsvc-dashboard");
    expect(dash.spec.tls[0].hosts).toEqual([dash.spec.rules[0].host]);
    const paths = dash.spec.rules[0].http.paths.map((p: any) => [
      p.path,
      p.backend.service.name,
      p.backend.service.port.name,
    ]);
    expect(paths).toEqual([
      ["/dashboard", "public-api", "internal"],
      ["/admin/", "public-api", "internal"],
    ]);
    // the public Ingress still routes neither
    const pub = JSON.stringify(ingress("emailsvc-public"));
    expect(pub).not.toContain("/dashboard");
    expect(pub).not.toContain("/admin");
  });

  it("lets only the ingress controller's namespace reach the internal port for it", () => {
    const policy = objects.find(
      (o) => o.kind === "NetworkPolicy" && o.metadata.name === "public-api-dashboard",
    ) as any;
    expect(policy.spec.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } }],
        ports: [{ protocol: "TCP", port: "internal" }],
      },
    ]);
  });

  it("is not part of the prod overlay (off by default)", () => {
    const prod = renderKustomization(path.join(k8s, "overlays/prod"));
    expect(prod.some((o) => o.metadata.name === "emailsvc-dashboard")).toBe(false);
  });
});
