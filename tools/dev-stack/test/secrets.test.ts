import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureSecretsFile, SECRET_NAMES, writePrivate } from "../src/secrets";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-secrets-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const modeOf = (f: string) => fs.statSync(f).mode & 0o777;

describe(".local/secrets.json and demo.json", () => {
  it("a first start writes every secret, readable by its owner only", () => {
    const file = path.join(dir, "new.json");
    const { secrets, added } = ensureSecretsFile(file);
    expect(added).toEqual([...SECRET_NAMES]);
    expect(secrets.INTERNAL_TOKEN).toMatch(/^int_[0-9a-f]{48}$/);
    expect(modeOf(file)).toBe(0o600);
    expect(ensureSecretsFile(file)).toEqual({ secrets, added: [] });
  });

  it("a file from before INTERNAL_TOKEN keeps its values (stored keys stay readable), gains the token, and is 0600", () => {
    const file = path.join(dir, "old.json");
    const old = {
      API_KEY_ENCRYPTION_KEY: "12".repeat(32),
      TRACKING_SECRET: "t".repeat(48),
      ADMIN_TOKEN: "adm_x",
    };
    fs.writeFileSync(file, JSON.stringify(old), { mode: 0o644 });
    const { secrets, added } = ensureSecretsFile(file);
    expect(added).toEqual(["INTERNAL_TOKEN"]);
    expect(secrets).toMatchObject(old);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(secrets);
    expect(modeOf(file)).toBe(0o600);
  });

  it("writePrivate narrows a file that existed with a wider mode (demo.json of an older start)", () => {
    const file = path.join(dir, "demo.json");
    fs.writeFileSync(file, "{}", { mode: 0o644 });
    writePrivate(file, '{"admin_token":"x"}');
    expect(modeOf(file)).toBe(0o600);
  });
});
