// The Domains and senders page in headless Chromium (Debian's package, driven by playwright-core) against the real
// public-api, domain-service (its internal port, as public-api's DOMAIN_SERVICE_URL), the provider simulator
// standing in for SES, PostgreSQL, RabbitMQ and Redis: register a domain, see its 7 records, copy one (the
// clipboard read back), verify it before and after the provider does (each record's state), a viewer who sees no
// control that changes anything, and a single address verified, resent, checked and removed. DMARC is looked up in
// real DNS, where a .test domain has none: that record stays pending. Screenshots in test/artifacts/, axe on each.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { domainServiceStack, type DomainServiceStack } from "@emailsvc/testing";

const DOMAINS_INTERNAL_TOKEN = "internal-token-for-dashboard-domains-0123";
import { artifacts, dashboardRoot, type Stack, startStack } from "./stack";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const CHROMIUM = process.env.DASHBOARD_CHROMIUM || "/usr/bin/chromium";
const PASSWORD = "correct horse battery";
const stamp = Date.now().toString(36);
const owner = `domains-owner-${stamp}@example.com`;
const viewer = `domains-viewer-${stamp}@example.com`;
const domain = `shop-${stamp}.test`;
const address = `ops-${stamp}@mailbox.test`;

let stack: Stack;
let ds: DomainServiceStack;
let browser: Browser;
let projectId: string;

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

async function signIn(page: Page, email: string) {
  await page.goto(`${stack.internal}/dashboard/p/${projectId}/domains`);
  await page.waitForURL(/\/dashboard\/sign-in\?next=/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`**/dashboard/p/${projectId}/domains`);
}

beforeAll(async () => {
  ds = await domainServiceStack({
    root: path.resolve(dashboardRoot, "../.."),
    internalToken: DOMAINS_INTERNAL_TOKEN,
  });
  stack = await startStack({ env: { DOMAIN_SERVICE_URL: ds.url, INTERNAL_TOKEN: DOMAINS_INTERNAL_TOKEN } });
  await ds.start();
  const project = await stack.admin("POST", "/admin/projects", { name: "Domains test shop" });
  expect(project.status).toBe(201);
  projectId = project.body.project.id;
  for (const [email, role] of [
    [owner, "owner"],
    [viewer, "viewer"],
  ] as const) {
    expect((await stack.admin("POST", "/admin/users", { email, password: PASSWORD })).status).toBe(201);
    expect((await stack.admin("PUT", `/admin/projects/${projectId}/members`, { email, role })).status).toBe(
      200,
    );
  }
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
  // three services start here (public-api, domain-service, the simulator): on a busy two-core machine, after the
  // other browser files, that took longer than the suite's 120 s hook timeout
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await ds?.stop();
});

describe("the Domains and senders page", () => {
  it("registers a domain, shows its 7 records, copies one, and verifies it with the state of each record", async () => {
    const ctx = await browser.newContext();
    // the page's own origin may read and write the clipboard (a real browser asks the user)
    await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.internal });
    const page = await ctx.newPage();
    await signIn(page, owner);
    await page.getByText("No domains yet").waitFor();
    await page.getByText("No single addresses").waitFor();
    await shoot(page, "domains-empty");

    // the API's words for a refused registration
    await page.getByLabel("Domain", { exact: true }).fill("not a domain");
    await page.getByLabel("Sender name", { exact: true }).fill("Shop");
    await page.getByLabel("Sender address", { exact: true }).fill(`hello@${domain}`);
    await page.getByRole("button", { name: "Register domain" }).click();
    await expect
      .poll(() => page.getByRole("alert").allTextContents())
      .toEqual([expect.stringContaining("Invalid domain format")]);

    await page.getByLabel("Domain", { exact: true }).fill(domain);
    await page.getByRole("button", { name: "Register domain" }).click();
    const card = page.getByTestId(`domain-${domain}`);
    await card.getByRole("heading", { name: domain }).waitFor();
    await expect.poll(() => card.getByTestId("dns-record").count()).toBe(7);
    expect(await card.getByTestId("domain-status").textContent()).toBe("pending");
    expect(await card.getByText("Pending", { exact: true }).count()).toBe(7);

    // copy the first DKIM record's value: the clipboard holds exactly what the table shows
    const dkimValue = await card
      .getByTestId("dns-record")
      .nth(1)
      .getByTestId("dns-record-value")
      .textContent();
    expect(dkimValue).toMatch(/\.dkim\.amazonses\.com$/);
    await card.getByRole("button", { name: "Copy the value of DKIM signature 1" }).click();
    // the button says so, in the page and in its name
    await card.getByRole("button", { name: "Copied the value of DKIM signature 1" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(dkimValue);
    await shoot(page, "domains");

    // before the provider sees the records: not yet, in words
    await card.getByRole("button", { name: `Verify ${domain}` }).click();
    await card.getByText("Domain not verified yet").waitFor();
    // the provider has not seen them: each record still pending, none verified
    await expect.poll(() => card.getByText("Pending", { exact: true }).count()).toBe(7);
    await card.getByText("0 of 7 records verified").waitFor();

    await ds.verifyIdentity(domain);
    await card.getByRole("button", { name: `Verify ${domain}` }).click();
    await card.getByText("Domain verified: you can send from it.").waitFor();
    await expect.poll(() => card.getByTestId("domain-status").textContent()).toBe("verified");
    // every record verified but DMARC, which DNS does not have for a .test domain
    await expect.poll(() => card.getByText("Verified", { exact: true }).count()).toBe(6);
    expect(await card.getByText("Pending", { exact: true }).count()).toBe(1);
    await card.getByText("6 of 7 records verified").waitFor();
    await shoot(page, "domains-verified");
    await ctx.close();
  });

  it("shows a viewer the domains and their records, with no control that changes anything", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, viewer);
    const card = page.getByTestId(`domain-${domain}`);
    await expect.poll(() => card.getByTestId("dns-record").count()).toBe(7);
    await page.getByText("You are a viewer of this project").waitFor();
    for (const name of ["Register domain", `Verify ${domain}`, `Remove ${domain}`, "Send verification email"])
      expect(await page.getByRole("button", { name }).count(), name).toBe(0);
    await shoot(page, "domains-viewer");
    await ctx.close();
  });

  it("verifies a single address: resend, check once the link was followed, remove after a confirmation", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page, owner);
    await page.getByLabel("Address to verify").fill(address);
    await page.getByLabel("Its sender name").fill("Ops");
    await page.getByRole("button", { name: "Send verification email" }).click();
    const row = page.getByRole("row").filter({ hasText: address });
    await row.getByText("pending", { exact: true }).waitFor();
    await page.getByText(`A verification email was sent to ${address}`).waitFor();

    await row.getByRole("button", { name: `Resend the verification email to ${address}` }).click();
    await page.getByText(`Verification email sent again to ${address}`).waitFor();

    await ds.verifyIdentity(address);
    await row.getByRole("button", { name: `Check status of ${address}` }).click();
    await page.getByText(`${address} is verified.`).waitFor();
    await row.getByText("verified", { exact: true }).waitFor();
    await shoot(page, "domains-address");

    await row.getByRole("button", { name: `Remove ${address}` }).click();
    const dialog = page.getByRole("dialog", { name: `Remove ${address}?` });
    expect(await dialog.textContent()).toContain("can no longer send");
    await dialog.getByRole("button", { name: "Remove address" }).click();
    await page.getByText(`${address} and its sender profile were removed`).waitFor();
    await page.getByText("No single addresses").waitFor();

    // each change is in the audit log, named without the domain or the address
    const log = await stack.admin("GET", `/admin/projects/${projectId}/audit-events`);
    const actions = (log.body.events as { action: string }[]).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        "domains.create",
        "domains.verify",
        "sender-addresses.create",
        "sender-addresses.resend",
        "sender-addresses.delete",
      ]),
    );
    await ctx.close();
  });
});
