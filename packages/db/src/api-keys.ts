import { projectIdOf, type ProjectId } from "@emailsvc/contracts";
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt } from "node:crypto";
import type { Db } from "./create-db";
import type { Project } from "./generated/prisma/client";

export type KeyMode = "live" | "test";
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `sk_live_` (or legacy `sk_proj_`) / `sk_test_` + 40 random base62 characters (~238 bits). */
export function generateApiKey(
  mode: KeyMode,
  opts: { legacy?: boolean } = {},
): { key: string; prefix: string } {
  const prefix = mode === "test" ? "sk_test_" : opts.legacy ? "sk_proj_" : "sk_live_";
  let body = "";
  for (let i = 0; i < 40; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return { key: prefix + body, prefix };
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

function keyBytes(keyHex: string): Buffer {
  const key = Buffer.from(keyHex, "hex");
  if (key.length !== 32) throw new Error("encryption key must be 32 bytes (64 hex characters)");
  return key;
}

/** AES-256-GCM; output is base64 of iv(12) | tag(16) | ciphertext. */
export function encryptSecret(plain: string, keyHex: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyBytes(keyHex), iv);
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString("base64");
}

/** Throws when the ciphertext was tampered with or the key is wrong (GCM authentication). */
export function decryptSecret(encoded: string, keyHex: string): string {
  const buf = Buffer.from(encoded, "base64");
  const decipher = createDecipheriv("aes-256-gcm", keyBytes(keyHex), buf.subarray(0, 12));
  decipher.setAuthTag(buf.subarray(12, 28));
  return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString("utf8");
}

function keyRow(
  projectId: ProjectId,
  mode: KeyMode,
  generated: { key: string; prefix: string },
  encKey: string,
) {
  return {
    projectId,
    mode,
    prefix: generated.prefix,
    keyHash: hashApiKey(generated.key),
    keyCiphertext: encryptSecret(generated.key, encKey),
    last4: generated.key.slice(-4),
    activeMode: mode,
  };
}

export interface CreateProjectInput {
  name: string;
  legacyLiveKey?: boolean;
  webhookUrl?: string | null;
  webhookUrlDev?: string | null;
  inboundWebhookUrl?: string | null;
  inboundWebhookUrlDev?: string | null;
  defaultTimezone?: string | null;
}

/** Creates a project with a live and a test key; the plaintext keys are returned this once. */
export async function createProject(
  db: Db,
  input: CreateProjectInput,
  encKey: string,
): Promise<{ project: Project & { id: ProjectId }; liveKey: string; testKey: string }> {
  const live = generateApiKey("live", { legacy: input.legacyLiveKey ?? false });
  const test = generateApiKey("test");
  const { legacyLiveKey: _legacy, ...settings } = input;
  const project = await db.prisma.$transaction(async (tx) => {
    const p = await tx.project.create({ data: settings });
    const id = projectIdOf(p.id);
    await tx.apiKey.createMany({
      data: [keyRow(id, "live", live, encKey), keyRow(id, "test", test, encKey)],
    });
    return p;
  });
  return { project: { ...project, id: projectIdOf(project.id) }, liveKey: live.key, testKey: test.key };
}

/**
 * Replaces one mode's key: the old one is revoked in the same transaction (invalid at once, lookups only see
 * active keys); the other mode's key is untouched. A live key keeps its prefix family (sk_proj_ stays legacy).
 * Regenerations of one project run one after the other (its row is locked first): two at once both revoked the
 * same key and the second insert broke the one-active-key-per-mode constraint (a 500).
 */
export async function regenerateApiKey(
  db: Db,
  projectId: ProjectId,
  mode: KeyMode,
  encKey: string,
): Promise<string> {
  return db.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM projects WHERE id = ${projectId}::uuid FOR UPDATE`;
    const current = await tx.apiKey.findFirst({ where: { projectId, activeMode: mode } });
    await tx.apiKey.updateMany({
      where: { projectId, activeMode: mode },
      data: { activeMode: null, revokedAt: new Date() },
    });
    const generated = generateApiKey(mode, { legacy: current?.prefix === "sk_proj_" });
    await tx.apiKey.create({ data: keyRow(projectId, mode, generated, encKey) });
    return generated.key;
  });
}

/** One indexed lookup by hash; revoked keys are never found. */
export async function findApiKey(
  db: Db,
  plaintext: string,
): Promise<{ projectId: ProjectId; mode: KeyMode; prefix: string; keyId: string } | null> {
  const res = await db.pool.query<{ id: string; project_id: ProjectId; mode: KeyMode; prefix: string }>(
    "SELECT id, project_id, mode, prefix FROM api_keys WHERE key_hash = $1 AND active_mode IS NOT NULL",
    [hashApiKey(plaintext)],
  );
  const row = res.rows[0];
  return row ? { projectId: row.project_id, mode: row.mode, prefix: row.prefix, keyId: row.id } : null;
}

/** The plaintext active key of a mode: outbound and inbound webhooks are signed with it (spec 6.2). */
export async function getSigningKey(
  db: Db,
  projectId: ProjectId,
  mode: KeyMode,
  encKey: string,
): Promise<string | null> {
  const res = await db.pool.query<{ key_ciphertext: string }>(
    "SELECT key_ciphertext FROM api_keys WHERE project_id = $1 AND active_mode = $2",
    [projectId, mode],
  );
  const row = res.rows[0];
  return row ? decryptSecret(row.key_ciphertext, encKey) : null;
}
