import { type Db, decryptSecret } from "@emailsvc/db";

/**
 * The demo project's marker: the verified sender `pnpm start` registers. The admin API's ownership rule lets
 * only one project hold a verified address, so in any database the project that holds this one is the demo
 * project; no column of our own is needed, and a database filled before this lookup existed is found too.
 */
export const DEMO_SENDER = "demo@example.com";

export interface DemoProject {
  projectId: string;
  liveKey: string;
  testKey: string;
  senderEmail: string;
  /** How the project was come by (printed at start-up). */
  origin: "created" | "reused";
  /** True when the stored keys could not be decrypted with this API_KEY_ENCRYPTION_KEY and were replaced. */
  keysRegenerated: boolean;
}

export interface DemoDeps {
  db: Db;
  /** public-api's internal admin API (`…/admin`) and its token. */
  adminUrl: string;
  adminToken: string;
  /** The API_KEY_ENCRYPTION_KEY the services run with (the stored keys are encrypted with it). */
  encryptionKey: string;
  log: (msg: string) => void;
}

/**
 * Finds the demo project in the database the stack runs against (by its verified demo sender), or creates it,
 * and returns its keys. The database is the source of these facts: .local/demo.json is only a cache of them,
 * so losing it, or pointing the stack at another database and back, finds the same project and keys again.
 */
export async function ensureDemoProject(deps: DemoDeps): Promise<DemoProject> {
  const found = await deps.db.prisma.senderProfile.findFirst({
    where: { senderEmail: DEMO_SENDER, emailVerified: true },
    orderBy: { createdAt: "asc" },
    select: { projectId: true },
  });
  const projectId = found?.projectId ?? (await createDemoProject(deps));
  // Also for a found project: the call is an upsert, and it marks the sender active and verified again.
  await admin(deps, "POST", `/projects/${projectId}/senders`, { email: DEMO_SENDER, name: "Demo Sender" });
  const stored = await storedKeys(deps, projectId);
  const keys = stored ?? (await regenerateKeys(deps, projectId));
  return {
    projectId,
    ...keys,
    senderEmail: DEMO_SENDER,
    origin: found ? "reused" : "created",
    keysRegenerated: stored === null,
  };
}

async function createDemoProject(deps: DemoDeps): Promise<string> {
  const body = (await admin(deps, "POST", "/projects", { name: "Demo project" })) as {
    project: { id: string };
  };
  return body.project.id;
}

/**
 * The active keys in plaintext, or null when they cannot be decrypted: they were stored under another
 * API_KEY_ENCRYPTION_KEY (.local/secrets.json was deleted and generated anew), and nothing can recover them.
 */
async function storedKeys(
  deps: DemoDeps,
  projectId: string,
): Promise<{ liveKey: string; testKey: string } | null> {
  const rows = await deps.db.prisma.apiKey.findMany({
    where: { projectId, activeMode: { not: null } },
    select: { mode: true, keyCiphertext: true },
  });
  const plain = (mode: string) => {
    const row = rows.find((r) => r.mode === mode);
    if (!row) return null;
    try {
      return decryptSecret(row.keyCiphertext, deps.encryptionKey);
    } catch {
      return null; // GCM authentication fails under another key
    }
  };
  const liveKey = plain("live");
  const testKey = plain("test");
  return liveKey && testKey ? { liveKey, testKey } : null;
}

/** New live and test keys through the admin API (so every replica's key cache drops the old ones). */
async function regenerateKeys(deps: DemoDeps, projectId: string) {
  deps.log(
    "the demo project's stored keys cannot be decrypted with the current API_KEY_ENCRYPTION_KEY " +
      "(secrets.json was generated anew): regenerating its live and test keys; the old keys no longer work",
  );
  const regen = async (mode: "live" | "test") =>
    ((await admin(deps, "POST", `/projects/${projectId}/keys/${mode}/regenerate`)) as { key: string }).key;
  return { liveKey: await regen("live"), testKey: await regen("test") };
}

async function admin(deps: DemoDeps, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${deps.adminUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${deps.adminToken}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin API ${method} ${path} failed: ${res.status} ${await res.text()}`);
  return res.json();
}
