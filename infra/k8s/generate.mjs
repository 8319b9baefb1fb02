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
  {
    name: "domain-service",
    port: 3002,
    // the /domains routes for public-api's admin API (DOMAIN_SERVICE_URL), behind INTERNAL_TOKEN
    internalPort: 3102,
    cpu: "100m",
    mem: "192Mi",
    min: 2,
    max: 4,
    why: "stateless HTTP",
  },
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
  {
    name: "smtp-relay",
    port: 3010,
    cpu: "100m",
    mem: "256Mi",
    min: 2,
    max: 6,
    why: "stateless SMTP: a message is answered only after its commit, a retried Message-ID is de-duplicated",
    // Unprivileged container ports (the capabilities are dropped); the LoadBalancer answers on 587 and 465.
    smtp: { submission: 2587, tls: 2465, tlsSecret: "smtp-relay-tls" },
  },
];

const yaml = (docs) => docs.map((d) => stringify(d, { lineWidth: 120 })).join("---\n");
const labels = (name) => ({ "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "emailsvc" });

for (const s of services) {
  const smtpPorts = s.smtp
    ? [
        { name: "smtp", containerPort: s.smtp.submission },
        { name: "smtps", containerPort: s.smtp.tls },
      ]
    : [];
  const ports = [
    { name: "http", containerPort: s.port },
    ...(s.internalPort ? [{ name: "internal", containerPort: s.internalPort }] : []),
    ...smtpPorts,
  ];
  const env = [
    { name: "PORT", value: String(s.port) },
    ...(s.internalPort ? [{ name: "INTERNAL_PORT", value: String(s.internalPort) }] : []),
    ...(s.smtp
      ? [
          { name: "SMTP_PORT", value: String(s.smtp.submission) },
          { name: "SMTP_TLS_PORT", value: String(s.smtp.tls) },
          // the certificate's Secret (cert-manager or your own), mounted below
          { name: "SMTP_TLS_CERT", value: "/etc/smtp-tls/tls.crt" },
          { name: "SMTP_TLS_KEY", value: "/etc/smtp-tls/tls.key" },
        ]
      : []),
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
              ...(s.smtp
                ? { volumeMounts: [{ name: "smtp-tls", mountPath: "/etc/smtp-tls", readOnly: true }] }
                : {}),
            },
          ],
          ...(s.smtp ? { volumes: [{ name: "smtp-tls", secret: { secretName: s.smtp.tlsSecret } }] } : {}),
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
      ports: ports
        .filter((p) => !smtpPorts.includes(p))
        .map((p) => ({ name: p.name, port: p.containerPort, targetPort: p.name })),
    },
  };
  // SMTP is not HTTP: an Ingress does not carry it, so the relay has its own LoadBalancer on the standard ports.
  // Local traffic policy keeps the client's address, which the per-IP connection and AUTH limits count.
  const smtpService = s.smtp && {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: `${s.name}-smtp`, labels: labels(s.name) },
    spec: {
      type: "LoadBalancer",
      externalTrafficPolicy: "Local",
      selector: labels(s.name),
      ports: [
        { name: "submission", port: 587, targetPort: "smtp" },
        { name: "submissions", port: 465, targetPort: "smtps" },
      ],
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
    `# generated by infra/k8s/generate.mjs\n${yaml([deployment, service, ...(smtpService ? [smtpService] : []), hpa, pdb])}`,
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
  ...services
    .filter((s) => s.smtp)
    .map((s) =>
      policy(`${s.name}-smtp`, "SMTP submission: any client (AUTH with an API key, TLS required)", {
        podSelector: { matchLabels: labels(s.name) },
        ingress: [
          {
            ports: [
              { protocol: "TCP", port: "smtp" },
              { protocol: "TCP", port: "smtps" },
            ],
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
