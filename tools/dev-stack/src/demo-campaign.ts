/**
 * Makes the demo project campaign-ready against the provider simulator (issue 43 item 4): the campaign pre-flight
 * wants the sender's domain registered and DKIM-verified and a postal address for the footer, and a campaign needs
 * an audience. Every step goes through the platform's own routes (domain-service's /domains, the admin API, /v1/leads)
 * and the simulator's control API stands in for DNS, so the state is what a user's own calls would leave. Each step
 * looks first and changes only what is missing: a restart, a lost .local/ or another database find it done or do it.
 */
import { DEMO_SENDER } from "./demo-project";

export const DEMO_DOMAIN = "example.com";
export const DEMO_TAG = "demo";
/** Clearly not an address: the compliance footer of every demo campaign shows it until the operator sets theirs. */
export const DEMO_POSTAL_ADDRESS =
  "PLACEHOLDER postal address of the demo project (not a real address): set yours with pnpm admin projects set <projectId> --postal-address";
/** Mailbox-simulator addresses (delivered), subscribed and tagged `demo`: the printed campaign's audience. */
export const DEMO_LEADS = [
  { email: "success+ada@simulator.amazonaws.com", first_name: "Ada" },
  { email: "success+grace@simulator.amazonaws.com", first_name: "Grace" },
];

export interface CampaignReadyDeps {
  /** The gateway (public routes: /domains, /v1/leads). */
  baseUrl: string;
  simulatorUrl: string;
  liveKey: string;
  /** public-api's internal admin API (`…/admin`) and its token. */
  adminUrl: string;
  adminToken: string;
  projectId: string;
  log: (msg: string) => void;
}

/** What start.ts prints: ready, or why not (the rest of the stack is usable either way). */
export type CampaignReadiness = { ready: true } | { ready: false; why: string };

export async function ensureCampaignReady(deps: CampaignReadyDeps): Promise<CampaignReadiness> {
  const domainProblem = await ensureVerifiedDomain(deps);
  if (domainProblem) return { ready: false, why: domainProblem };
  await ensurePostalAddress(deps);
  await call(deps, `${deps.baseUrl}/v1/leads`, "POST", {
    // `subscription` again on every start: the printed campaign is marketing, which goes to subscribed leads only
    leads: DEMO_LEADS.map((l) => ({ ...l, tags: [DEMO_TAG], subscription: "subscribed" })),
  });
  // The sender last: a domain registered (or registered again) above may have touched its sender profile, and the
  // verified demo sender is what finds this project on the next start (demo-project.ts).
  await call(deps, `${deps.adminUrl}/projects/${deps.projectId}/senders`, "POST", {
    email: DEMO_SENDER,
    name: "Demo Sender",
  });
  return { ready: true };
}

/** example.com registered in the demo project and verified (domain and DKIM): null, or why it could not be. */
async function ensureVerifiedDomain(deps: CampaignReadyDeps): Promise<string | null> {
  const found = await request(deps, `${deps.baseUrl}/domains?domain=${DEMO_DOMAIN}`, "GET");
  if (found.status === 200 && (found.body as { domain: { can_send: boolean } }).domain.can_send) return null;
  if (found.status === 404) {
    const registered = await register(deps);
    if (registered) return registered;
  } else if (found.status !== 200) {
    throw new Error(`GET /domains?domain=${DEMO_DOMAIN} → ${found.status}: ${JSON.stringify(found.body)}`);
  }
  // The simulator settles the identity as DNS would; it forgets identities when it restarts, so a domain left
  // pending by an interrupted start is registered again (its identity is created anew).
  if (!(await settleAtSimulator(deps))) {
    await call(deps, `${deps.baseUrl}/domains/${DEMO_DOMAIN}`, "DELETE");
    const again = await register(deps);
    if (again) return again;
    if (!(await settleAtSimulator(deps))) return `the simulator does not know the identity ${DEMO_DOMAIN}`;
  }
  const verified = (await call(deps, `${deps.baseUrl}/domains/${DEMO_DOMAIN}/verify`, "POST", {})) as {
    can_send: boolean;
  };
  if (!verified.can_send) return `${DEMO_DOMAIN} did not verify (POST /domains/${DEMO_DOMAIN}/verify)`;
  deps.log(`registered and verified ${DEMO_DOMAIN} (simulator) for the demo project`);
  return null;
}

async function register(deps: CampaignReadyDeps): Promise<string | null> {
  const res = await request(deps, `${deps.baseUrl}/domains/register`, "POST", {
    domain: DEMO_DOMAIN,
    sender_name: "Demo Sender",
    sender_email: DEMO_SENDER,
  });
  if (res.status === 201) return null;
  // another project of this database holds it (the provider's identities are one per account)
  if (res.status === 409) return `${DEMO_DOMAIN}: ${(res.body as { error?: string }).error ?? "conflict"}`;
  throw new Error(`POST /domains/register → ${res.status}: ${JSON.stringify(res.body)}`);
}

async function settleAtSimulator(deps: CampaignReadyDeps): Promise<boolean> {
  const res = await fetch(`${deps.simulatorUrl}/_sim/identities/${DEMO_DOMAIN}/verify`, { method: "POST" });
  return res.ok;
}

/** The placeholder, only where the project has no postal address (an operator's own is never replaced). */
async function ensurePostalAddress(deps: CampaignReadyDeps): Promise<void> {
  const url = `${deps.adminUrl}/projects/${deps.projectId}`;
  const { project } = (await call(deps, url, "GET")) as { project: { postal_address: string | null } };
  if (project.postal_address) return;
  await call(deps, url, "PATCH", { postal_address: DEMO_POSTAL_ADDRESS });
}

/** The admin API takes the admin token; the public routes the demo project's live key. */
function auth(deps: CampaignReadyDeps, url: string): string {
  return url.startsWith(deps.adminUrl) ? deps.adminToken : deps.liveKey;
}

async function request(
  deps: CampaignReadyDeps,
  url: string,
  method: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${auth(deps, url)}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

async function call(deps: CampaignReadyDeps, url: string, method: string, body?: unknown): Promise<unknown> {
  const res = await request(deps, url, method, body);
  if (res.status >= 300) throw new Error(`${method} ${url} → ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * The campaign command start.ts prints, to run as it is from the repository root: the admin CLI reads the stack's
 * facts (STACK_STATE_DIR names a second stack's). Marketing, to the `demo` leads, from the verified demo sender.
 */
export function demoCampaignCommand(projectId: string, stateDir: string | null): string {
  const prefix = stateDir ? `STACK_STATE_DIR=${stateDir} ` : "";
  return (
    `${prefix}pnpm admin campaigns create ${projectId} --name "Demo campaign" ` +
    `--subject "Hello {{first_name}}" --html "<p>Hi {{first_name}}, this is the demo campaign.</p>" ` +
    `--sender ${DEMO_SENDER} --tag ${DEMO_TAG}`
  );
}
