/**
 * The dashboard's demo owner (issue 45): a platform owner `npm start` creates through the admin API (the same
 * route `pnpm admin users create` calls) and prints, owner of the demo project. Its password is kept in
 * `.local/demo-owner.json` (0600) and set again at every start, so it holds across restarts, another database
 * (the user is created there) and a lost `.local/` (a new password is drawn and set).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writePrivate } from "./secrets";

export const DEMO_OWNER_EMAIL = "owner@example.com";

export interface DemoOwnerDeps {
  adminUrl: string;
  adminToken: string;
  projectId: string;
  localDir: string;
}

export async function ensureDemoOwner(deps: DemoOwnerDeps): Promise<{ email: string; password: string }> {
  const file = path.join(deps.localDir, "demo-owner.json");
  let password: string | undefined;
  try {
    password = (JSON.parse(fs.readFileSync(file, "utf8")) as { password?: string }).password;
  } catch {
    // none yet
  }
  password ??= randomBytes(12).toString("base64url");
  const call = async (method: string, route: string, body: unknown) => {
    const res = await fetch(`${deps.adminUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${deps.adminToken}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const created = await call("POST", "/users", {
    email: DEMO_OWNER_EMAIL,
    password,
    name: "Demo owner",
    platform_owner: true,
  });
  if (created.status === 409) {
    const reset = await call("PUT", "/users/password", { email: DEMO_OWNER_EMAIL, password });
    if (reset.status !== 200)
      throw new Error(`could not set the demo owner's password: ${reset.status} ${reset.text}`);
  } else if (created.status !== 201) {
    throw new Error(`could not create the demo owner: ${created.status} ${created.text}`);
  }
  const member = await call("PUT", `/projects/${deps.projectId}/members`, {
    email: DEMO_OWNER_EMAIL,
    role: "owner",
  });
  if (member.status !== 200)
    throw new Error(`could not make the demo owner a member: ${member.status} ${member.text}`);
  writePrivate(file, JSON.stringify({ email: DEMO_OWNER_EMAIL, password }, null, 2) + "\n");
  return { email: DEMO_OWNER_EMAIL, password };
}
