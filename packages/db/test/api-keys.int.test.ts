import { randomBytes } from "node:crypto";
import {
  createDb,
  createProject,
  decryptSecret,
  encryptSecret,
  findApiKey,
  getSigningKey,
  regenerateApiKey,
} from "../src";

const encKey = randomBytes(32).toString("hex");
const db = createDb(process.env.DATABASE_URL!);
afterAll(() => db.close());

describe("API keys (real PostgreSQL)", () => {
  it("creates a project whose live and test keys resolve to their modes", async () => {
    const { project, liveKey, testKey } = await createProject(db, { name: "p" }, encKey);
    expect(liveKey).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    expect(testKey).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
    expect(await findApiKey(db, liveKey)).toMatchObject({ projectId: project.id, mode: "live" });
    expect(await findApiKey(db, testKey)).toMatchObject({ projectId: project.id, mode: "test" });
    expect(await findApiKey(db, "sk_live_unknown")).toBeNull();
    // stored hashed and encrypted, never in plaintext
    const rows = await db.pool.query("SELECT key_hash, key_ciphertext FROM api_keys WHERE project_id = $1", [
      project.id,
    ]);
    expect(JSON.stringify(rows.rows)).not.toContain(liveKey);
  });

  it("regenerating one mode invalidates its old key at once and leaves the other mode working", async () => {
    const { project, liveKey, testKey } = await createProject(db, { name: "p" }, encKey);
    const newLive = await regenerateApiKey(db, project.id, "live", encKey);
    expect(await findApiKey(db, liveKey)).toBeNull();
    expect(await findApiKey(db, newLive)).toMatchObject({ projectId: project.id, mode: "live" });
    expect(await findApiKey(db, testKey)).toMatchObject({ projectId: project.id, mode: "test" });
    const newTest = await regenerateApiKey(db, project.id, "test", encKey);
    expect(await findApiKey(db, testKey)).toBeNull();
    expect(await findApiKey(db, newLive)).not.toBeNull();
    expect(await getSigningKey(db, project.id, "test", encKey)).toBe(newTest);
    expect(await getSigningKey(db, project.id, "live", encKey)).toBe(newLive);
  });

  it("concurrent regenerations of one mode all succeed, one after the other, leaving one active key", async () => {
    const { project } = await createProject(db, { name: "p" }, encKey);
    const keys = await Promise.all(
      Array.from({ length: 6 }, () => regenerateApiKey(db, project.id, "live", encKey)),
    );
    const active = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM api_keys WHERE project_id = $1 AND active_mode = 'live'",
      [project.id],
    );
    expect(active.rows[0]!.n).toBe(1);
    const working = await Promise.all(keys.map((k) => findApiKey(db, k)));
    expect(working.filter(Boolean)).toHaveLength(1);
    expect(await getSigningKey(db, project.id, "live", encKey)).toBe(keys[working.findIndex(Boolean)]);
  });

  it("keeps legacy sk_proj_ keys working as live keys, also after regeneration", async () => {
    const { project, liveKey } = await createProject(db, { name: "legacy", legacyLiveKey: true }, encKey);
    expect(liveKey.startsWith("sk_proj_")).toBe(true);
    expect(await findApiKey(db, liveKey)).toMatchObject({ mode: "live", prefix: "sk_proj_" });
    const next = await regenerateApiKey(db, project.id, "live", encKey);
    expect(next.startsWith("sk_proj_")).toBe(true);
  });

  it("encrypts with AES-256-GCM and refuses tampered ciphertext", () => {
    const enc = encryptSecret("sk_live_secret", encKey);
    expect(decryptSecret(enc, encKey)).toBe("sk_live_secret");
    const buf = Buffer.from(enc, "base64");
    buf[buf.length - 1] = buf[buf.length - 1]! ^ 1;
    expect(() => decryptSecret(buf.toString("base64"), encKey)).toThrow();
    expect(() => decryptSecret(enc, randomBytes(32).toString("hex"))).toThrow();
  });
});
