import { randomBytes } from "node:crypto";
import { EnvError, loadEnv } from "./load-env";
import { adminEnv, apiKeyEncryptionEnv, baseEnv, internalTokenEnv, trackingEnv } from "./pieces";
import { bitsPerChar, secretProblem } from "./production-secrets";

const schema = baseEnv
  .extend(apiKeyEncryptionEnv.shape)
  .extend(trackingEnv.shape)
  .extend(adminEnv.shape)
  .extend(internalTokenEnv.shape);

const good = () => ({
  API_KEY_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  TRACKING_SECRET: randomBytes(24).toString("hex"),
  ADMIN_TOKEN: `adm_${randomBytes(24).toString("hex")}`,
  INTERNAL_TOKEN: `int_${randomBytes(24).toString("hex")}`,
});

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadEnv("public-api", schema, env);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(EnvError);
    return (e as EnvError).problems;
  }
}

describe("production secrets", () => {
  it("starts with random secrets (what pnpm secrets and npm start write)", () => {
    for (let i = 0; i < 50; i++) expect(problemsOf({ NODE_ENV: "production", ...good() })).toEqual([]);
  });

  it("refuses the placeholders compose used to ship, naming each variable", () => {
    const problems = problemsOf({
      NODE_ENV: "production",
      ...good(),
      API_KEY_ENCRYPTION_KEY: "0".repeat(64),
      TRACKING_SECRET: "change-me-tracking-secret",
      ADMIN_TOKEN: "change-me-admin-token",
    });
    expect(problems).toEqual([
      expect.stringMatching(/^API_KEY_ENCRYPTION_KEY: is all zeros/),
      expect.stringMatching(/^TRACKING_SECRET: is a known placeholder/),
      expect.stringMatching(/^ADMIN_TOKEN: is a known placeholder/),
    ]);
  });

  it("refuses a low-entropy key, a short secret and a missing internal token", () => {
    const problems = problemsOf({
      NODE_ENV: "production",
      ...good(),
      API_KEY_ENCRYPTION_KEY: "ab".repeat(32),
      TRACKING_SECRET: randomBytes(10).toString("hex"), // 20 characters: the dev minimum (16), not production's
      INTERNAL_TOKEN: undefined,
    });
    expect(problems).toEqual([
      expect.stringMatching(/^API_KEY_ENCRYPTION_KEY: has too little entropy/),
      "TRACKING_SECRET: must be at least 32 characters in production",
      "INTERNAL_TOKEN: is required in production",
    ]);
  });

  it("leaves development and test alone (their fixed test secrets keep working)", () => {
    const env = { ADMIN_TOKEN: "admin-token-for-tests-0123456789", TRACKING_SECRET: "tracking-secret-0123" };
    expect(problemsOf({ NODE_ENV: "test", API_KEY_ENCRYPTION_KEY: "ab".repeat(32), ...env })).toEqual([]);
    expect(problemsOf({ API_KEY_ENCRYPTION_KEY: "0".repeat(64), ...env })).toEqual([]);
  });

  it("checks only the secrets a service's schema takes", () => {
    const workerSchema = baseEnv.extend(trackingEnv.shape);
    expect(
      loadEnv("notification-ingest", workerSchema, {
        NODE_ENV: "production",
        TRACKING_SECRET: randomBytes(24).toString("hex"),
      }).TRACKING_SECRET,
    ).toHaveLength(48);
  });

  it.each([
    ["a", "all zeros", "0".repeat(40)],
    ["a", "repeated", "abc123".repeat(8)],
    ["a", "few distinct characters", "aabbccddaabbccddaabbccddaabbccddd"],
    ["a", "placeholder", `replace-me-${randomBytes(16).toString("hex")}`],
  ])("%s %s value is refused", (_a, _what, value) => {
    expect(secretProblem("ADMIN_TOKEN", value)).not.toBeNull();
  });

  it("measures entropy per character", () => {
    expect(bitsPerChar("aaaa")).toBe(0);
    expect(bitsPerChar("abcd")).toBe(2);
  });
});
