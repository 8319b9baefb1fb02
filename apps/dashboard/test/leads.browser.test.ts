// Issue 46, item 1 in headless Chromium against the real public-api and PostgreSQL: build a dynamic segment and
// watch its live count follow the rules, save it and find its leads; open a lead's timeline and find the email
// sent to it (linked to the activity's page); tag, edit and delete a lead with confirmation. Leads, events and the
// send go through /v1 with the project's live key (no send-worker runs: the email stays queued, which is its status
// on the timeline). Every page is screenshotted (test/artifacts/) and checked by axe-core.
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

let stack: Stack;
let browser: Browser;
let page: Page;
let projectId: string;
let liveKey: string;
let sender: string;
const owner = `leads-owner-${Date.now()}@example.com`;

async function shoot(p: Page, name: string) {
  await p.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  await p.addScriptTag({ content: AXE });
  const violations = await p.evaluate(async () => {
    const result = await (window as any).axe.run(document);
    return result.violations
      .filter((v: any) => v.impact === "serious" || v.impact === "critical")
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
}

const v1 = (p: string, body: unknown) =>
  fetch(`${stack.public}${p}`, {
    method: "POST",
    headers: { authorization: `Bearer ${liveKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  stack = await startStack();
  const project = await stack.admin("POST", "/admin/projects", { name: "Leads test shop" });
  expect(project.status).toBe(201);
  projectId = project.body.project?.id ?? project.body.project_id ?? project.body.id;
  liveKey = project.body.live_key ?? project.body.keys?.live;
  sender = `hello@leads-${Date.now()}.example.com`;
  expect(
    (await stack.admin("POST", `/admin/projects/${projectId}/senders`, { email: sender, name: "Shop" }))
      .status,
  ).toBe(201);
  expect((await stack.admin("POST", "/admin/users", { email: owner, password: PASSWORD })).status).toBe(201);
  expect(
    (await stack.admin("PUT", `/admin/projects/${projectId}/members`, { email: owner, role: "owner" }))
      .status,
  ).toBe(200);

  const leads = [
    { email: "ann@example.org", first_name: "Ann", tags: ["vip"], attributes: { plan: "pro" } },
    { email: "bob@example.org", tags: ["vip"], attributes: { plan: "free" } },
    { email: "cem@example.org", attributes: { plan: "pro" } },
    { email: "dee@example.org", tags: ["old"] },
  ];
  const bulk = await v1("/v1/leads", { leads });
  expect(bulk.status, await bulk.clone().text()).toBe(200);
  expect((await bulk.json()).created).toBe(leads.length);
  expect((await v1("/v1/events", { email: "ann@example.org", event: "purchase" })).status).toBeLessThan(300);
  const send = await v1("/v1/send-email", {
    recipient_email: "ann@example.org",
    sender_email: sender,
    subject: "Your spring offer, Ann",
    html_body: "<p>Hi Ann</p>",
  });
  expect(send.status, await send.clone().text()).toBe(200);

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
  page = await browser.newPage();
  await page.goto(`${stack.internal}/dashboard/p/${projectId}/segments`);
  await page.waitForURL(/\/dashboard\/sign-in/);
  await page.getByLabel("Email").fill(owner);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`**/dashboard/p/${projectId}/segments`);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("leads and segments", () => {
  it("builds a dynamic segment and sees its count follow the rules, then finds its leads", async () => {
    await page.getByText("No segments yet").waitFor();
    await shoot(page, "segments-empty");
    await page.getByRole("link", { name: "New dynamic segment" }).click();
    await page.waitForURL(`**/p/${projectId}/segments/new`);
    await page.getByLabel("Segment name").fill("VIPs on pro");
    await page.getByLabel("Group 1 rule 1: tag").fill("vip");
    const count = page.getByTestId("segment-count");
    await expect.poll(() => count.textContent()).toBe("2");
    await page.getByRole("button", { name: "Add a rule to group 1" }).click();
    await page.getByLabel("Group 1 rule 2: attribute name").fill("plan");
    await page.getByLabel("Group 1 rule 2: value").fill("pro");
    await expect.poll(() => count.textContent()).toBe("1");
    // OR: a vip, or on pro
    await page.getByRole("radiogroup", { name: "Rules of group 1" }).getByLabel("any (OR)").check();
    await expect.poll(() => count.textContent()).toBe("3");
    await shoot(page, "segment-builder");
    await page.getByRole("radiogroup", { name: "Rules of group 1" }).getByLabel("all (AND)").check();
    await expect.poll(() => count.textContent()).toBe("1");
    await page.getByRole("button", { name: "Save segment" }).click();
    await page.waitForURL(`**/p/${projectId}/segments`);
    const row = page.getByRole("row", { name: /VIPs on pro/ });
    await expect.poll(() => row.textContent()).toContain("dynamic");
    await shoot(page, "segments");
    await row.getByRole("link", { name: "VIPs on pro" }).click();
    await page.waitForURL(/\/leads\?segment=/);
    await page.getByRole("link", { name: "ann@example.org" }).waitFor();
    expect(await page.getByRole("table").getByRole("row").count()).toBe(2);
  });

  it("filters the leads table from the URL and the form", async () => {
    await page.goto(`${stack.internal}/dashboard/p/${projectId}/leads?attr=plan%3Dpro`);
    await page.getByRole("link", { name: "cem@example.org" }).waitFor();
    expect(await page.getByRole("table").getByRole("row").count()).toBe(3);
    await page.getByLabel("Tag").fill("old");
    await page.getByLabel("Attribute").fill("");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/\?tag=old$/);
    await page.getByRole("link", { name: "dee@example.org" }).waitFor();
    await page.getByRole("button", { name: "Clear" }).click();
    await expect.poll(() => page.getByRole("table").getByRole("row").count()).toBe(5);
    await shoot(page, "leads");
  });

  it("opens a lead's timeline and finds the email sent to it, linked to its activity", async () => {
    await page.getByRole("link", { name: "ann@example.org" }).click();
    await page.getByRole("heading", { name: "ann@example.org" }).waitFor();
    const timeline = page.getByRole("region", { name: "Timeline" });
    const email = timeline.getByRole("link", { name: "Your spring offer, Ann" });
    await email.waitFor();
    await timeline.getByText("purchase").waitFor();
    await expect
      .poll(() => page.getByRole("region", { name: "Segments" }).textContent())
      .toContain("VIPs on pro");
    await shoot(page, "lead");
    const leadUrl = page.url();
    await email.click();
    await page.waitForURL(new RegExp(`/p/${projectId}/activity/[0-9a-f-]{36}$`));
    await page.getByText("Your spring offer, Ann").first().waitFor();
    await page.goto(leadUrl);
  });

  it("tags, edits and deletes a lead with confirmation", async () => {
    await page.getByRole("heading", { name: "ann@example.org" }).waitFor();
    await page.getByLabel("New tag").fill("newsletter");
    await page.getByRole("button", { name: "Add tag" }).click();
    await page.getByRole("button", { name: "Remove tag newsletter" }).waitFor();
    await page.getByRole("button", { name: "Remove tag vip" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Remove tag vip" }).count()).toBe(0);

    await page.getByRole("button", { name: "Edit" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("First name").fill("Annie");
    await dialog.getByLabel("Attributes (JSON)").fill('{"plan": "enterprise"}');
    await shoot(page, "lead-edit");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect
      .poll(() => page.getByRole("region", { name: "Attributes" }).textContent())
      .toContain("enterprise");
    await expect.poll(() => page.getByRole("region", { name: "Profile" }).textContent()).toContain("Annie");

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page
      .getByRole("dialog")
      .getByText(/removed for good/)
      .waitFor();
    await shoot(page, "lead-delete");
    await page.getByRole("button", { name: "Delete the lead" }).click();
    await page.waitForURL(new RegExp(`/p/${projectId}/leads$`));
    await page.getByRole("link", { name: "bob@example.org" }).waitFor();
    expect(await page.getByRole("link", { name: "ann@example.org" }).count()).toBe(0);
    expect((await stack.admin("GET", `/admin/projects/${projectId}/leads/ann@example.org`)).status).toBe(404);
  });
});
