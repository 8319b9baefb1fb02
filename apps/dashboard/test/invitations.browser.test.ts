// Invitations and the template editor's test send in headless Chromium (Debian's package, driven by playwright-core)
// against the real public-api, PostgreSQL, RabbitMQ and Redis (issue 45): an owner invites a viewer on the Team
// page; no sender is configured in this stack, so the page shows the link the API gives instead of emailing it
// (the emailed path is public-api's invitations.int.test.ts); the invitee opens it with no session, sets a name
// and a password, lands in the project, signs out and in again, finds the keys' regenerate controls disabled, and
// the API refuses the viewer's regenerate (403); the audit log holds user.invited and invitation.accepted. Then the
// owner sends a test of a template from the editor. Every page is screenshotted (test/artifacts/) and axe-checked.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifacts, type Stack, startStack } from "./stack";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const CHROMIUM = process.env.DASHBOARD_CHROMIUM || "/usr/bin/chromium";
const PASSWORD = "correct horse battery";
const INVITEE_PASSWORD = "a brand new password";

let stack: Stack;
let browser: Browser;
let projectId: string;
let templateId: string;
const stamp = Date.now();
const owner = `inviting-owner-${stamp}@example.com`;
const invitee = `invited-viewer-${stamp}@example.com`;

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document);
    return result.violations
      .filter((v: any) => v.impact === "serious" || v.impact === "critical")
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
}

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

beforeAll(async () => {
  stack = await startStack();
  const project = await stack.admin("POST", "/admin/projects", { name: "Invitations test shop" });
  expect(project.status).toBe(201);
  projectId = project.body.project.id;
  const sender = `hello@invites-${stamp}.example.com`;
  expect(
    (await stack.admin("POST", `/admin/projects/${projectId}/senders`, { email: sender, name: "Shop" }))
      .status,
  ).toBe(201);
  expect(
    (await stack.admin("POST", "/admin/users", { email: owner, password: PASSWORD, name: "Olive" })).status,
  ).toBe(201);
  expect(
    (await stack.admin("PUT", `/admin/projects/${projectId}/members`, { email: owner, role: "owner" }))
      .status,
  ).toBe(200);
  const template = await stack.admin("POST", `/admin/projects/${projectId}/templates`, {
    name: "Welcome",
    subject: "Welcome {name}",
    html: "<h1>Hello {name}</h1>",
  });
  expect(template.status).toBe(201);
  templateId = template.body.template.template_id;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-sync",
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("invitations", () => {
  let ownerPage: Page;
  let link: string;

  it("an owner invites a viewer; with no sender configured the page gives the link to pass on", async () => {
    ownerPage = await browser.newPage();
    await ownerPage.goto(`${stack.internal}/dashboard/sign-in`);
    await signIn(ownerPage, owner, PASSWORD);
    await ownerPage.waitForURL(`**/dashboard/p/${projectId}/**`);
    await ownerPage.getByRole("link", { name: "Team" }).click();
    await ownerPage.getByText("No pending invitations").waitFor();
    await ownerPage.getByLabel("Email to invite").fill(invitee);
    await ownerPage.getByLabel("Invite as").selectOption("viewer");
    await ownerPage.getByRole("button", { name: "Send invitation" }).click();
    await ownerPage.getByText(`Invitation for ${invitee} made, but not emailed`).waitFor();
    link = await ownerPage.getByTestId("invite-url").inputValue();
    expect(link).toMatch(new RegExp(`^${stack.internal}/dashboard/invite/[A-Za-z0-9_-]{43}$`));
    const row = ownerPage.getByRole("row").filter({ hasText: invitee });
    await row.waitFor();
    expect(await row.textContent()).toContain("viewer");
    expect(await row.textContent()).toContain("Olive");
    await shoot(ownerPage, "team-invitations");
  });

  it("the invitee, with no session, sets a name and a password, joins, and as a viewer cannot regenerate keys", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(link);
    await page.getByRole("heading", { name: "Join Invitations test shop" }).waitFor();
    expect(await page.locator("main").textContent()).toContain(
      `Olive invited ${invitee} to the project Invitations test shop as viewer.`,
    );
    await shoot(page, "invite-accept");
    await page.getByLabel("Your name").fill("Vera Viewer");
    await page.getByLabel("Choose a password").fill("too short");
    await page.getByRole("button", { name: "Accept and join" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toContain("password must be at least 12 characters");
    await page.getByLabel("Choose a password").fill(INVITEE_PASSWORD);
    await page.getByRole("button", { name: "Accept and join" }).click();
    await page.waitForURL(`**/dashboard/p/${projectId}/**`);

    // signs out, and in again with the password just chosen
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/dashboard/sign-in");
    await signIn(page, invitee, INVITEE_PASSWORD);
    await page.waitForURL(`**/dashboard/p/${projectId}/**`);
    await page.goto(`${stack.internal}/dashboard/p/${projectId}/keys`);
    await expect
      .poll(() => page.getByRole("button", { name: "Regenerate test key" }).isDisabled())
      .toBe(true);
    expect(await page.getByRole("button", { name: "Regenerate live key" }).isDisabled()).toBe(true);
    await shoot(page, "keys-invited-viewer");
    // the API, not only the page, refuses the viewer
    const refused = await page.evaluate(async (id) => {
      const me = await (await fetch("/admin/auth/me")).json();
      const res = await fetch(`/admin/projects/${id}/keys/test/regenerate`, {
        method: "POST",
        headers: { "x-csrf-token": me.csrf_token },
      });
      return { status: res.status, body: await res.json() };
    }, projectId);
    expect(refused).toEqual({
      status: 403,
      body: {
        success: false,
        error: "Forbidden: this needs the admin role in the project; you are a viewer",
      },
    });

    // the link is used up
    await page.goto(link);
    await page.getByText("This invitation was used already.").waitFor();
    await ctx.close();
  });

  it("the team shows the new viewer and no pending invitation; the audit log shows the invitation and its acceptance", async () => {
    await ownerPage.reload();
    await ownerPage.getByRole("cell", { name: invitee, exact: true }).waitFor();
    await ownerPage.getByText("No pending invitations").waitFor();
    await ownerPage.getByRole("link", { name: "Audit log" }).click();
    await ownerPage.getByRole("cell", { name: "user.invited" }).waitFor();
    expect(await ownerPage.getByRole("cell", { name: "invitation.accepted" }).count()).toBe(1);
    await shoot(ownerPage, "audit-invitations");
  });

  it("sends a test of a template from the editor with the preview's sample variables", async () => {
    await ownerPage.goto(`${stack.internal}/dashboard/p/${projectId}/templates/${templateId}`);
    await ownerPage.getByRole("heading", { name: "Template: Welcome" }).waitFor();
    await ownerPage.getByLabel("Sample variables (JSON)").fill('{"name": "Ada"}');
    await ownerPage.getByRole("button", { name: "Send test" }).click();
    const dialog = ownerPage.getByRole("dialog", { name: "Send a test of this template" });
    await dialog.getByLabel("Send to").fill("qa@example.org");
    await dialog.getByRole("button", { name: "Send", exact: true }).click();
    await dialog.getByText("Test of template Welcome queued for qa@example.org (test)").waitFor();
    await shoot(ownerPage, "template-send-test");
    const activities = await stack.admin("GET", `/admin/projects/${projectId}/activities?mode=test`);
    expect(activities.body.activities.map((a: { subject: string }) => a.subject)).toContain(
      "[Test] Welcome Ada",
    );
  });
});
