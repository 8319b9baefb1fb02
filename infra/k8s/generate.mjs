// Writes the per-service manifests of base/ from one table, so the nine services stay uniform.
// Run `node infra/k8s/generate.mjs` after changing the table; the committed YAML is what kustomize applies.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

// `yaml` from the dev-stack package (infra/ is not a workspace package).
const { stringify } = createRequire(
  path.join(path.dirname(fileURLToPath(import.meta.url)), "../../tools/dev-stack/package.json"),
)("yaml");

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "base");
// hpa: why each can scale horizontally. minReplicas 2 for the pollers shows SKIP LOCKED claims in action.
const services = [
  {
    name: "public-api",
    port: 3001,
    internalPort: 3101,
    cpu: "250m",
    mem: "256Mi",
    min: 2,
    max: 10,
    why: "stateless HTTP; idempotency lives in Redis/PostgreSQL",
  },
  { name: "domain-service", port: 3002, cpu: "100m", mem: "192Mi", min: 2, max: 4, why: "stateless HTTP" },
  {
    name: "send-worker",
    port: 3003,
    cpu: "250m",
    mem: "256Mi",
    min: 2,
    max: 10,
    why: "competing consumers; the rate limit is global in Redis and claims are atomic",
  },
  {
    name: "campaign-dispatcher",
    port: 3004,
    internalPort: 3104,
    cpu: "100m",
    mem: "192Mi",
    min: 2,
    max: 4,
    why: "claims campaign batches with FOR UPDATE SKIP LOCKED",
  },
  {
    name: "scheduler",
    port: 3005,
    cpu: "100m",
    mem: "192Mi",
    min: 2,
    max: 4,
    why: "claims due sends with FOR UPDATE SKIP LOCKED: replicas never double-send",
  },
  {
    name: "notification-ingest",
    port: 3006,
    cpu: "250m",
    mem: "256Mi",
    min: 2,
    max: 10,
    why: "stateless HTTP + competing consumers, de-duplicated by SNS MessageId",
  },
  { name: "inbound-mail", port: 3007, cpu: "100m", mem: "256Mi", min: 2, max: 4, why: "stateless HTTP" },
  {
    name: "webhook-dispatcher",
    port: 3008,
    cpu: "250m",
    mem: "256Mi",
    min: 2,
    max: 8,
    why: "competing consumers; deliveries are unique per event",
  },
  {
    name: "shop-ingest",
    port: 3009,
    cpu: "100m",
    mem: "192Mi",
    min: 2,
    max: 4,
    why: "stateless HTTP + consumers, de-duplicated by webhook id",
  },
];

const yaml = (docs) => docs.map((d) => stringify(d, { lineWidth: 120 })).join("---\n");
const labels = (name) => ({ "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "emailsvc" });

for (const s of services) {
  const ports = [
    { name: "http", containerPort: s.port },
    ...(s.internalPort ? [{ name: "internal", containerPort: s.internalPort }] : []),
  ];
  const env = [
    { name: "PORT", value: String(s.port) },
    ...(s.internalPort ? [{ name: "INTERNAL_PORT", value: String(s.internalPort) }] : []),
  ];
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: s.name, labels: labels(s.name) },
    spec: {
      replicas: s.min,
      selector: { matchLabels: labels(s.name) },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels: labels(s.name),
          annotations: {
            "prometheus.io/scrape": "true",
            "prometheus.io/port": String(s.port),
            "prometheus.io/path": "/metrics",
          },
        },
        spec: {
          terminationGracePeriodSeconds: 30,
          securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 },
          containers: [
            {
              name: s.name,
              image: `emailsvc/${s.name}:latest`,
              ports,
              env,
              envFrom: [
                { configMapRef: { name: "emailsvc-config" } },
                { secretRef: { name: "emailsvc-secrets" } },
              ],
              resources: { requests: { cpu: s.cpu, memory: s.mem }, limits: { cpu: "1", memory: "512Mi" } },
              livenessProbe: {
                httpGet: { path: "/healthz", port: "http" },
                periodSeconds: 10,
                failureThreshold: 3,
              },
              readinessProbe: {
                httpGet: { path: "/readyz", port: "http" },
                periodSeconds: 5,
                failureThreshold: 2,
              },
              // Let the load balancer drop the pod before SIGTERM; the service then drains within 25 s.
              lifecycle: { preStop: { exec: { command: ["sleep", "5"] } } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
        },
      },
    },
  };
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: s.name, labels: labels(s.name) },
    spec: {
      selector: labels(s.name),
      ports: ports.map((p) => ({ name: p.name, port: p.containerPort, targetPort: p.name })),
    },
  };
  const hpa = {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: s.name, labels: labels(s.name), annotations: { "emailsvc/why-horizontal": s.why } },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: s.name },
      minReplicas: s.min,
      maxReplicas: s.max,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
        },
      ],
    },
  };
  const pdb = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: s.name, labels: labels(s.name) },
    spec: { minAvailable: 1, selector: { matchLabels: labels(s.name) } },
  };
  fs.writeFileSync(
    path.join(dir, `${s.name}.yaml`),
    `# generated by infra/k8s/generate.mjs\n${yaml([deployment, service, hpa, pdb])}`,
  );
}

const publicRoutes = [
  ["/v1/", "public-api"],
  ["/docs", "public-api"],
  ["/domains", "domain-service"],
  ["/webhooks/provider", "notification-ingest"],
  ["/t/", "notification-ingest"],
  ["/api/inbound/", "inbound-mail"],
  ["/webhooks/shop/", "shop-ingest"],
];
const ingress = {
  apiVersion: "networking.k8s.io/v1",
  kind: "Ingress",
  metadata: {
    name: "emailsvc-public",
    annotations: {
      "nginx.ingress.kubernetes.io/proxy-body-size": "32m",
      // HTTPS only: API keys travel in headers, and SNS and the shop platforms post signed bodies here
      "nginx.ingress.kubernetes.io/ssl-redirect": "true",
      "nginx.ingress.kubernetes.io/force-ssl-redirect": "true",
    },
  },
  spec: {
    ingressClassName: "nginx",
    // The certificate's Secret (cert-manager or your own): the prod overlay sets the real host with the rule's.
    tls: [{ hosts: ["mail.example.com"], secretName: "emailsvc-public-tls" }],
    rules: [
      {
        host: "mail.example.com",
        http: {
          // Only public prefixes: /send-email, /trigger-*, /admin stay cluster-internal (no API key = open relay).
          paths: publicRoutes.map(([p, svc]) => ({
            path: p,
            pathType: "Prefix",
            backend: { service: { name: svc, port: { name: "http" } } },
          })),
        },
      },
    ],
  },
};
fs.writeFileSync(path.join(dir, "ingress.yaml"), `# generated by infra/k8s/generate.mjs\n${yaml([ingress])}`);

// NetworkPolicies (issue 49 item 2). Without them any pod of any namespace could reach the internal ports
// (POST /send-email without x-project-id: an open relay for every identity of the SES account). Once one policy
// selects a pod, everything it does not allow is refused:
// - the internal ports: only the platform's own pods (this namespace, part-of emailsvc) and the operator namespace;
// - the public ports of the routed services: only the ingress controller's pods;
// - every http port: Prometheus (its namespace), for /metrics (the probes come from the kubelet, which
//   NetworkPolicies do not govern).
// The namespaces are placeholders an overlay changes if yours differ (`kubernetes.io/metadata.name` is the label
// Kubernetes sets on every namespace).
const OPERATOR_NAMESPACE = "emailsvc-operator";
const INGRESS_NAMESPACE = "ingress-nginx";
const INGRESS_POD_LABELS = { "app.kubernetes.io/name": "ingress-nginx" };
const MONITORING_NAMESPACE = "monitoring";
// a function: one shared object would be written as YAML anchors and aliases
const platform = () => ({ "app.kubernetes.io/part-of": "emailsvc" });
const namespace = (name) => ({ matchLabels: { "kubernetes.io/metadata.name": name } });
const routed = [...new Set(publicRoutes.map(([, svc]) => svc))];
const policy = (name, why, spec) => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name, labels: platform(), annotations: { "emailsvc/why": why } },
  spec: { policyTypes: ["Ingress"], ...spec },
});
const policies = [
  policy("emailsvc-default-deny", "every platform pod refuses what the policies below do not allow", {
    podSelector: { matchLabels: platform() },
    ingress: [],
  }),
  ...services
    .filter((s) => s.internalPort)
    .map((s) =>
      policy(
        `${s.name}-internal`,
        "internal routes: the platform's own pods and the operator namespace only",
        {
          podSelector: { matchLabels: labels(s.name) },
          ingress: [
            {
              from: [
                { podSelector: { matchLabels: platform() } },
                { namespaceSelector: namespace(OPERATOR_NAMESPACE) },
              ],
              ports: [{ protocol: "TCP", port: "internal" }],
            },
          ],
        },
      ),
    ),
  ...routed.map((name) =>
    policy(`${name}-public`, "public routes: the ingress controller only", {
      podSelector: { matchLabels: labels(name) },
      ingress: [
        {
          from: [
            {
              namespaceSelector: namespace(INGRESS_NAMESPACE),
              podSelector: { matchLabels: INGRESS_POD_LABELS },
            },
          ],
          ports: [{ protocol: "TCP", port: "http" }],
        },
      ],
    }),
  ),
  policy("emailsvc-metrics", "Prometheus scrapes /metrics on every service's http port", {
    podSelector: { matchLabels: platform() },
    ingress: [
      {
        from: [{ namespaceSelector: namespace(MONITORING_NAMESPACE) }],
        ports: [{ protocol: "TCP", port: "http" }],
      },
    ],
  }),
];
fs.writeFileSync(
  path.join(dir, "network-policies.yaml"),
  `# generated by infra/k8s/generate.mjs\n${yaml(policies)}`,
);
fs.writeFileSync(
  path.join(dir, "kustomization.yaml"),
  `# generated by infra/k8s/generate.mjs
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: emailsvc
resources:
  - namespace.yaml
  - config.yaml
  - migrate-job.yaml
  - ingress.yaml
  - network-policies.yaml
${services.map((s) => `  - ${s.name}.yaml`).join("\n")}
`,
);
