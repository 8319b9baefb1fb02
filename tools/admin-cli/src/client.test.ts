import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveInternalToken, resolveTarget, resolveTriggerUrl } from "./client";

describe("the admin CLI finds its stack", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "admin-cli-"));
  const write = (dir: string, facts: Record<string, string>) => {
    fs.mkdirSync(path.join(root, dir), { recursive: true });
    fs.writeFileSync(path.join(root, dir, "demo.json"), JSON.stringify(facts));
  };
  beforeAll(() => {
    write(".local", {
      internal_url: "http://127.0.0.1:3101",
      admin_token: "a",
      internal_token: "int-a",
      campaign_url: "http://127.0.0.1:3104",
    });
    write(".local-b", {
      internal_url: "http://127.0.0.1:3601",
      admin_token: "b",
      campaign_url: "http://127.0.0.1:3604",
    });
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("reads .local/demo.json by default", () => {
    expect(resolveTarget({}, root)).toEqual({ url: "http://127.0.0.1:3101/admin", token: "a" });
    expect(resolveTriggerUrl({}, root)).toBe("http://127.0.0.1:3104");
    expect(resolveInternalToken({}, root)).toBe("int-a");
  });

  it("reads the facts of the stack STACK_STATE_DIR names", () => {
    const env = { STACK_STATE_DIR: ".local-b" };
    expect(resolveTarget(env, root)).toEqual({ url: "http://127.0.0.1:3601/admin", token: "b" });
    expect(resolveTriggerUrl(env, root)).toBe("http://127.0.0.1:3604");
  });

  it("lets ADMIN_URL, ADMIN_TOKEN and CAMPAIGN_URL win, and says what to do without a token", () => {
    const env = { ADMIN_URL: "http://h/admin/", ADMIN_TOKEN: "t", CAMPAIGN_URL: "http://c/" };
    expect(resolveTarget(env, root)).toEqual({ url: "http://h/admin", token: "t" });
    expect(resolveTriggerUrl(env, root)).toBe("http://c");
    expect(() => resolveTarget({ STACK_STATE_DIR: ".local-none" }, root)).toThrow(/ADMIN_TOKEN/);
    expect(resolveInternalToken({ INTERNAL_TOKEN: "i" }, root)).toBe("i");
    expect(() => resolveInternalToken({ STACK_STATE_DIR: ".local-b" }, root)).toThrow(/INTERNAL_TOKEN/);
  });
});
