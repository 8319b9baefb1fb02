/**
 * The local stack's service table: ports and public path prefixes. The nginx gateway (infra/gateway) and the
 * Kubernetes Ingress route the same prefixes; tools/dev-stack/test checks they agree.
 */
export interface ServiceSpec {
  name: string;
  /** The app it runs (apps/<app>), when the name is a replica's (`send-worker-2`); else the name. */
  app?: string;
  port: number;
  internalPort?: number;
  /** Public path prefixes routed to this service by the gateway. */
  publicPrefixes: string[];
  /**
   * The cluster-only routes served on `internalPort` that a user or a script may call, and the key under which
   * `pnpm start` writes their address into .local/demo.json (and prints it).
   */
  internal?: { fact: string; routes: string[] };
  /**
   * Its work is queues and loops, not the answers of requests (campaign-dispatcher's internal trigger only starts
   * a cycle). On the local stack, where every service shares one machine's cores, it runs at a lower CPU priority
   * (start.ts): the requests callers wait on are answered first, and its queues are worked through in the time
   * left. send-worker is not one: the sending itself keeps its share (a campaign's rate on a saturated machine
   * fell from 67% to 58% of the limit with send-worker niced too), and the internal synchronous POST /send-email
   * waits for it.
   */
  background?: true;
  /** SMTP listeners (smtp-relay): STARTTLS submission and implicit TLS, beside its HTTP port. */
  smtp?: { port: number; tlsPort: number };
}

export const SERVICES: ServiceSpec[] = [
  {
    name: "public-api",
    port: 3001,
    internalPort: 3101,
    publicPrefixes: ["/v1/", "/docs"],
    internal: { fact: "internal_url", routes: ["POST /send-email", "POST /trigger-job", "/admin/*"] },
  },
  // its internal port serves the admin API's domain routes (public-api's DOMAIN_SERVICE_URL), not users or scripts
  { name: "domain-service", port: 3002, internalPort: 3102, publicPrefixes: ["/domains"] },
  { name: "send-worker", port: 3003, publicPrefixes: [] },
  {
    name: "campaign-dispatcher",
    port: 3004,
    internalPort: 3104,
    publicPrefixes: [],
    internal: { fact: "campaign_url", routes: ["POST /trigger-campaign"] },
    background: true,
  },
  { name: "scheduler", port: 3005, publicPrefixes: [], background: true },
  { name: "notification-ingest", port: 3006, publicPrefixes: ["/webhooks/provider", "/t/"] },
  { name: "inbound-mail", port: 3007, publicPrefixes: ["/api/inbound/"] },
  { name: "webhook-dispatcher", port: 3008, publicPrefixes: [], background: true },
  { name: "shop-ingest", port: 3009, publicPrefixes: ["/webhooks/shop/"] },
  // SMTP is not routed by the HTTP gateway: clients connect to its own ports (high ones locally, 587/465 deployed).
  { name: "smtp-relay", port: 3010, publicPrefixes: [], smtp: { port: 2587, tlsPort: 2465 } },
];

export const GATEWAY_PORT = 8080;
export const SIMULATOR_PORT = 4566;
export const S3_PORT = 4569;

/** Longest prefix wins, like nginx `location` prefix matching. */
export function routeFor(path: string, services = SERVICES): ServiceSpec | undefined {
  let best: { svc: ServiceSpec; len: number } | undefined;
  for (const svc of services) {
    for (const prefix of svc.publicPrefixes) {
      if (
        (path === prefix || path.startsWith(prefix) || path.startsWith(prefix.replace(/\/$/, "") + "?")) &&
        (!best || prefix.length > best.len)
      ) {
        best = { svc, len: prefix.length };
      }
    }
  }
  return best?.svc;
}

/** The same table shifted by `offset` (a second stack beside the default one). */
export function withPortOffset(services: ServiceSpec[], offset: number): ServiceSpec[] {
  if (!offset) return services;
  return services.map((s) => ({
    ...s,
    port: s.port + offset,
    ...(s.internalPort ? { internalPort: s.internalPort + offset } : {}),
    ...(s.smtp ? { smtp: { port: s.smtp.port + offset, tlsPort: s.smtp.tlsPort + offset } } : {}),
  }));
}

/** How far a replica's ports are from the first instance's: replica n listens on port + REPLICA_PORT_STEP·(n−1). */
export const REPLICA_PORT_STEP = 50;

/**
 * Extra instances of some services, as Kubernetes runs several pods of one Deployment (STACK_REPLICAS, e.g.
 * `send-worker=2,campaign-dispatcher=2`): bench/chaos kills one replica while the other works, to see that the
 * work two replicas share is neither lost nor done twice. A replica is named `<app>-<n>`, listens on its own ports
 * (the first's + 50·(n−1)) and takes no public route (the gateway sends requests to the first; the replicas of a
 * worker share its queues). SMTP listeners are not replicated.
 */
export function withReplicas(services: ServiceSpec[], spec: string | undefined): ServiceSpec[] {
  const counts = new Map<string, number>();
  for (const part of (spec ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z-]+)=(\d+)$/.exec(part);
    if (!m) throw new Error(`STACK_REPLICAS: "${part}" is not <service>=<count>`);
    if (!services.some((s) => s.name === m[1] && !s.smtp))
      throw new Error(`STACK_REPLICAS: no service ${m[1]} to replicate (smtp-relay cannot be)`);
    counts.set(m[1]!, Number(m[2]));
  }
  return services.flatMap((s) => [
    s,
    ...Array.from({ length: Math.max(0, (counts.get(s.name) ?? 1) - 1) }, (_, i): ServiceSpec => {
      const shift = REPLICA_PORT_STEP * (i + 1);
      return {
        name: `${s.name}-${i + 2}`,
        app: s.name,
        port: s.port + shift,
        ...(s.internalPort ? { internalPort: s.internalPort + shift } : {}),
        publicPrefixes: [],
        ...(s.background ? { background: true as const } : {}),
      };
    }),
  ]);
}

/** The address of every service's internal routes, by the demo-file key that names it (`internal_url`, …). */
export function internalAddresses(
  services: ServiceSpec[],
): { fact: string; service: string; url: string; routes: string[] }[] {
  return services.flatMap((s) =>
    s.internal && s.internalPort
      ? [
          {
            fact: s.internal.fact,
            service: s.name,
            url: `http://127.0.0.1:${s.internalPort}`,
            routes: s.internal.routes,
          },
        ]
      : [],
  );
}
