// The dashboard in headless Chromium (Debian's package, driven by playwright-core) against the real public-api,
// PostgreSQL, RabbitMQ and Redis: sign-in, a refused password, a viewer's disabled key controls, regenerating the
// test key while the live key keeps sending, a setting changed, a template's live preview, those actions in the
// audit log, a test send seen only in the activity's Test view with its timeline and the email as sent (remote
// images blocked until asked), a platform owner's project switcher, a suppression added and removed, a failed webhook delivery (seeded: no
// webhook-dispatcher runs here) with its attempts and redelivered, sign-out. playwright gives the browser a fresh profile (user data dir) of its own per launch. Every page is screenshotted (test/artifacts/) and checked by axe-core.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifacts, type Stack, startStack } from "./stack";

const require = createRequire(import.meta.url);
// the driver @emailsvc/testing brings (this package has none of its own): a row only a dispatcher would write
const pg = createRequire(require.resolve("@emailsvc/testing/jest-preset"))("pg") as {
  Client: new (o: { connectionString?: string }) => {
    connect(): Promise<void>;
    query(sql: string, params?: unknown[]): Promise<{ rows: any[] }>;
    end(): Promise<void>;
  };
};
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const CHROMIUM = process.env.DASHBOARD_CHROMIUM || "/usr/bin/chromium";
const PASSWORD = "correct horse battery";

let stack: Stack;
let browser: Browser;
let projectId: string;
let liveKey: string;
let testKey: string;
let sender: string;
const owner = `owner-${Date.now()}@example.com`;
const viewer = `viewer-${Date.now()}@example.com`;

/** axe-core in the page: no serious or critical violation. */
async function expectAccessible(page: Page, name: string) {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as any).axe;
    const result = await axe.run(document);
    return result.violations
      .filter((v: any) => v.impact === "serious" || v.impact === "critical")
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  await expectAccessible(page, name);
}

/** SQL on the stack's database (stack.ts's set-up put its URL in DATABASE_URL). */
async function sql(text: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const sendEmail = (key: string) =>
  fetch(`${stack.public}/v1/send-email`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      recipient_email: "alice@example.org",
      sender_email: sender,
      html_body: "<p>Hi</p>",
    }),
  });

beforeAll(async () => {
  stack = await startStack();
  const project = await stack.admin("POST", "/admin/projects", { name: "Dashboard test shop" });
  expect(project.status).toBe(201);
  projectId = project.body.project?.id ?? project.body.project_id ?? project.body.id;
  liveKey = project.body.live_key ?? project.body.keys?.live;
  testKey = project.body.test_key ?? project.body.keys?.test;
  expect([projectId, liveKey, testKey].every(Boolean), JSON.stringify(project.body)).toBe(true);
  sender = `hello@shop-${Date.now()}.example.com`;
  expect(
    (await stack.admin("POST", `/admin/projects/${projectId}/senders`, { email: sender, name: "Shop" }))
      .status,
  ).toBe(201);
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
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("the dashboard", () => {
  it("refuses a wrong password, signs in, and comes back to the page first asked for", async () => {
    const page = await browser.newPage();
    await page.goto(`${stack.internal}/dashboard/p/${projectId}/settings`);
    await page.waitForURL(/\/dashboard\/sign-in\?next=/);
    await signIn(page, owner, "not the password at all");
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("Wrong email or password");
    await shoot(page, "sign-in");
    await signIn(page, owner, PASSWORD);
    await page.waitForURL(`**/dashboard/p/${projectId}/settings`);
    await page.close();
  });

  it("a platform owner who is a member of no project still finds every project in the switcher", async () => {
    const platformOwner = `platform-${Date.now()}@example.com`;
    expect(
      (
        await stack.admin("POST", "/admin/users", {
          email: platformOwner,
          password: PASSWORD,
          platform_owner: true,
        })
      ).status,
    ).toBe(201);
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${stack.internal}/dashboard/sign-in`);
    await signIn(page, platformOwner, PASSWORD);
    await page.waitForURL(/\/dashboard\/p\/[0-9a-f-]{36}\/overview$/);
    // the list of every project arrives after the page: wait for it rather than read the select at once
    await expect
      .poll(() => page.getByLabel("Switch project").locator("option").allTextContents())
      .toContain("Dashboard test shop (platform owner)");
    await ctx.close();
  });

  it("a viewer sees the keys but cannot regenerate them", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${stack.internal}/dashboard/sign-in`);
    await signIn(page, viewer, PASSWORD);
    await page.waitForURL(`**/dashboard/p/${projectId}/overview`);
    await page.getByRole("link", { name: "API keys" }).click();
    await expect
      .poll(() => page.getByRole("button", { name: "Regenerate test key" }).isDisabled())
      .toBe(true);
    expect(await page.getByRole("button", { name: "Regenerate live key" }).isDisabled()).toBe(true);
    expect(
      await page.getByText("Only an owner or an admin of this project may regenerate keys.").count(),
    ).toBe(2);
    await shoot(page, "keys-viewer");
    await page.getByRole("link", { name: "Suppressions" }).click();
    await page.getByText("You are a viewer of this project").waitFor();
    expect(await page.getByRole("button", { name: "Add suppression" }).isDisabled()).toBe(true);
    await ctx.close();
  });

  describe("signed in as the owner", () => {
    let page: Page;
    beforeAll(async () => {
      page = await browser.newPage();
      await page.goto(`${stack.internal}/dashboard/sign-in`);
      await signIn(page, owner, PASSWORD);
      await page.waitForURL(`**/dashboard/p/${projectId}/overview`);
      await page.getByRole("link", { name: "API keys" }).click();
      await page.waitForURL(`**/dashboard/p/${projectId}/keys`);
    });

    it("regenerates the test key after a confirmation; the old test key stops, the live key keeps sending", async () => {
      await page.getByRole("button", { name: "Show test key" }).click();
      await expect.poll(() => page.getByTestId("test-key").textContent()).toBe(testKey);
      await shoot(page, "keys");
      await page.getByRole("button", { name: "Regenerate test key" }).click();
      const dialog = page.getByRole("dialog", { name: "Regenerate the test key?" });
      expect(await dialog.textContent()).toContain("stops working at once");
      await shoot(page, "keys-confirm");
      await dialog.getByRole("button", { name: "Regenerate now" }).click();
      await page.getByText("A new test key is active; the old one no longer works.").waitFor();
      await expect.poll(() => page.getByTestId("test-key").textContent()).not.toBe(testKey);
      const newTestKey = await page.getByTestId("test-key").textContent();
      expect(newTestKey).toMatch(/\S{20,}/);

      expect((await sendEmail(testKey)).status).toBe(401);
      const live = await sendEmail(liveKey);
      expect(live.status, await live.text()).toBe(200);
      expect((await sendEmail(newTestKey!)).status).toBe(200);
    });

    it("shows a test send only in the Test view, with its timeline and the email as sent, remote images held back", async () => {
      // a remote image of our own: the dashboard must not fetch it until "Load remote content"
      let pixelHits = 0;
      const pixel: Server = createServer((_req, res) => {
        pixelHits++;
        res
          .writeHead(200, { "content-type": "image/gif" })
          .end(Buffer.from("R0lGODlhAQABAAAAACw=", "base64"));
      });
      await new Promise<void>((resolve) => pixel.listen(0, "127.0.0.1", resolve));
      const pixelUrl = `http://127.0.0.1:${(pixel.address() as AddressInfo).port}/pixel.gif`;
      try {
        const keys = (await stack.admin("GET", `/admin/projects/${projectId}/keys`)).body;
        const stamp = Date.now();
        const send = async (key: string, subject: string) => {
          const res = await fetch(`${stack.public}/v1/send-email`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({
              recipient_email: "bob@example.org",
              sender_email: sender,
              subject,
              html_body: `<h1>Your order ships</h1><img src="${pixelUrl}" alt="">`,
            }),
          });
          expect(res.status, await res.text()).toBe(200);
        };
        const testSubject = `Test order ${stamp}`;
        const liveSubject = `Live order ${stamp}`;
        await send(keys.test.key, testSubject);
        await send(keys.live.key, liveSubject);

        await page.getByRole("link", { name: "Activity", exact: true }).click();
        await page.getByRole("link", { name: liveSubject }).waitFor();
        expect(await page.getByRole("link", { name: testSubject }).count()).toBe(0);
        await page.getByRole("button", { name: "Test", exact: true }).click();
        await page.waitForURL(/activity\?mode=test$/);
        await page.getByRole("link", { name: testSubject }).waitFor();
        expect(await page.getByRole("link", { name: liveSubject }).count()).toBe(0);
        await shoot(page, "activity");

        // a filter lives in the URL and says what to do when nothing matches
        await page.getByLabel("Recipient").fill("nobody@example.org");
        await page.getByRole("button", { name: "Filter" }).click();
        await page.waitForURL(/mode=test&recipient=nobody%40example\.org/);
        await page.getByText("No emails match these filters").waitFor();
        await page.getByRole("button", { name: "Clear" }).click();
        await page.waitForURL(/activity\?mode=test$/);

        await page.getByRole("link", { name: testSubject }).click();
        await page.waitForURL(/\/activity\/[0-9a-f-]{36}$/);
        await page.getByRole("heading", { name: `Email: ${testSubject}` }).waitFor();
        const timeline = page.getByRole("list", { name: "Event timeline" });
        expect(await timeline.getByRole("listitem").first().textContent()).toContain("accepted");
        const frame = page.frameLocator('iframe[title="The email as sent"]');
        await expect.poll(() => frame.locator("h1").textContent()).toBe("Your order ships");
        expect(await page.locator('iframe[title="The email as sent"]').getAttribute("sandbox")).toBe("");
        await shoot(page, "activity-detail");
        expect(pixelHits, "a remote image loaded before it was asked for").toBe(0);
        await page.getByRole("button", { name: "Load remote content" }).click();
        await expect.poll(() => pixelHits, { timeout: 10_000 }).toBeGreaterThan(0);
        await page.getByRole("link", { name: "Back to the activity" }).click();
        await page.waitForURL(/activity\?mode=test$/);
      } finally {
        pixel.close();
      }
    });

    it("draws the sends on the overview, live and test apart, with the rates and the quotas used", async () => {
      // this stack runs public-api alone: the sends of the tests above are marked sent and delivered here as the
      // send-worker's and notification-ingest's statements do; the triggers count them for the overview
      await sql(
        `UPDATE activities SET status = 'delivered', sent_at = now(), delivered_at = now()
          WHERE project_id = $1 AND status = 'queued'`,
        [projectId],
      );
      await page.getByRole("link", { name: "Overview" }).click();
      await page.waitForURL(/\/overview$/);
      const figure = (label: string) =>
        page
          .locator("dl > div")
          .filter({ has: page.getByText(label, { exact: true }) })
          .locator("dd");
      await expect
        .poll(async () => Number((await figure("Sent").textContent())?.split(" ")[0]), { timeout: 20_000 })
        .toBeGreaterThan(0);
      await page.getByRole("figure").waitFor();
      await page.getByRole("region", { name: "Complaint rate" }).getByText("0.00%").waitFor();
      await page
        .getByRole("region", { name: "Provider, last 24 hours" })
        .getByText("unknown", { exact: true })
        .waitFor();
      await page
        .getByRole("meter", { name: "This month (" + new Date().toISOString().slice(0, 7) + ") used" })
        .waitFor();
      await shoot(page, "overview");
      await page.getByRole("button", { name: "Test", exact: true }).click();
      await page.waitForURL(/overview\?mode=test$/);
      await page.getByRole("button", { name: "24 hours" }).click();
      await page.waitForURL(/mode=test&range=24h$/);
      await expect
        .poll(async () => Number((await figure("Sent").textContent())?.split(" ")[0]), { timeout: 20_000 })
        .toBeGreaterThan(0);
      await shoot(page, "overview-test-24h");
    });

    it("changes a setting, and shows the API's words for a refused one", async () => {
      await page.getByRole("link", { name: "Settings" }).click();
      await page.getByLabel("Default time zone").fill("Mars/Olympus_Mons");
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect
        .poll(() => page.getByRole("alert").allTextContents(), { timeout: 10_000 })
        .toEqual([expect.stringContaining("must be an IANA time zone name")]);
      await page.getByLabel("Default time zone").fill("Europe/Berlin");
      await page.getByLabel("Postal address").fill("1 Harbour Street, Hamburg");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByRole("status").filter({ hasText: "Saved." }).waitFor({ timeout: 10_000 });
      const stored = await stack.admin("GET", `/admin/projects/${projectId}`);
      expect(stored.body.project.default_timezone).toBe("Europe/Berlin");
      expect(stored.body.project.postal_address).toBe("1 Harbour Street, Hamburg");
      await shoot(page, "settings");
    });

    it("previews a template as its sample variables change, and saves it", async () => {
      await page.getByRole("link", { name: "Templates" }).click();
      await page.getByText("No templates yet").waitFor();
      await shoot(page, "templates-empty");
      await page.getByRole("link", { name: "New template" }).click();
      await page.getByLabel("Name").fill("Order shipped");
      const frame = page.frameLocator('iframe[title="Rendered email preview"]');
      await expect.poll(() => frame.locator("h1").textContent()).toBe("Hello Ada");
      await page.getByLabel("Sample variables (JSON)").fill('{"order": {"id": "Z-9"}, "items": []}');
      await expect.poll(() => frame.locator("h1").textContent()).toBe("Hello there");
      expect(await page.getByTestId("preview-subject").textContent()).toBe("Your order Z-9");
      await shoot(page, "template-editor");
      await page.getByRole("button", { name: "Create template" }).click();
      await page.getByRole("heading", { name: "Template: Order shipped" }).waitFor();
      await page.getByRole("link", { name: "All templates" }).click();
      await page.getByRole("link", { name: "Order shipped" }).waitFor();
      await shoot(page, "templates");
    });

    it("shows the team", async () => {
      await page.getByRole("link", { name: "Team" }).click();
      await page.getByRole("cell", { name: viewer, exact: true }).waitFor();
      await page.getByRole("button", { name: "Add member" }).waitFor();
      await page.getByLabel("Email", { exact: true }).fill("nobody@example.com");
      await page.getByRole("button", { name: "Add member" }).click();
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toContain("No user with the email nobody@example.com");
      await shoot(page, "team");
    });

    it("adds a suppression, finds it by the start of its address, and removes it after a confirmation", async () => {
      await page.getByRole("link", { name: "Suppressions" }).click();
      await page.getByText("No suppressed addresses").waitFor();
      await page.getByLabel("Email address").fill("Gone@Example.org");
      await page.getByRole("button", { name: "Add suppression" }).click();
      await page.getByRole("cell", { name: "gone@example.org", exact: true }).waitFor();
      expect(await page.getByRole("cell", { name: "manual", exact: true }).count()).toBe(1);
      await shoot(page, "suppressions");

      await page.getByLabel("Search").fill("nobody");
      await page.getByRole("button", { name: "Search" }).click();
      await page.waitForURL(/suppressions\?search=nobody$/);
      await page.getByText("No suppressed address starts with “nobody”").waitFor();
      await page.getByLabel("Search").fill("GONE");
      await page.getByRole("button", { name: "Search" }).click();
      await page.getByRole("cell", { name: "gone@example.org", exact: true }).waitFor();

      await page.getByRole("button", { name: "Remove gone@example.org" }).click();
      const dialog = page.getByRole("dialog", { name: "Remove gone@example.org from the suppression list?" });
      expect(await dialog.textContent()).toContain("sent again");
      await dialog.getByRole("button", { name: "Remove" }).click();
      await page.getByText("Removed gone@example.org: emails to it are sent again.").waitFor();
      await page.getByText("No suppressed address starts with “GONE”").waitFor();
      const left = await stack.admin("GET", `/admin/projects/${projectId}/suppressions`);
      expect(left.body.suppressions).toEqual([]);
    });

    it("shows a failed webhook delivery with its attempts and the failing receiver, and redelivers it", async () => {
      // what the webhook-dispatcher writes when a receiver keeps failing (none runs in this stack)
      expect(
        (
          await stack.admin("PATCH", `/admin/projects/${projectId}`, {
            webhook_url: "https://hooks.shop.example/emails",
          })
        ).status,
      ).toBe(200);
      await sql("UPDATE projects SET webhook_failing_since = now() - interval '1 hour' WHERE id = $1", [
        projectId,
      ]);
      const [{ id }] = await sql(
        `INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, attempts,
                                         last_status_code, updated_at)
         VALUES (gen_random_uuid(), $1, gen_random_uuid()::text, 'outbound', 'email.bounced', false, $2, $3,
                 'exhausted', 2, 503, now())
         RETURNING id`,
        [
          projectId,
          "https://hooks.shop.example/emails",
          JSON.stringify({ type: "email.bounced", data: { activity_id: crypto.randomUUID() } }),
        ],
      );
      await sql(
        `INSERT INTO webhook_attempts (id, delivery_id, project_id, attempt_number, status_code, response_body, duration_ms, error, created_at)
         VALUES (gen_random_uuid(), $1, $2, 1, NULL, NULL, 10000, 'timed out after 10000 ms', now() - interval '1 minute'),
                (gen_random_uuid(), $1, $2, 2, 503, 'Service Unavailable: receiver down', 87, NULL, now())`,
        [id, projectId],
      );

      await page.getByRole("link", { name: "Webhooks" }).click();
      const live = page.getByTestId("receiver-webhook_url");
      await live.getByText("Failing since").waitFor();
      expect(await live.textContent()).toContain("https://hooks.shop.example/emails");
      expect(await page.getByTestId("receiver-webhook_url_dev").textContent()).toContain("not set");
      await page.getByLabel("Status").selectOption("failed,exhausted");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/webhooks\?status=failed%2Cexhausted$/);
      await page.getByRole("link", { name: "email.bounced" }).waitFor();
      await shoot(page, "webhooks");

      await page.getByRole("link", { name: "email.bounced" }).click();
      await page.getByRole("heading", { name: "Delivery: email.bounced" }).waitFor();
      await page.getByRole("cell", { name: "Service Unavailable: receiver down" }).waitFor();
      expect(await page.getByRole("cell", { name: "timed out after 10000 ms" }).count()).toBe(1);
      expect(await page.getByRole("cell", { name: "87 ms" }).count()).toBe(1);
      expect(await page.getByTestId("delivery-status").textContent()).toBe("exhausted");
      await shoot(page, "webhook-delivery");
      await page.getByRole("button", { name: "Redeliver" }).click();
      await page.getByText("Sent again: the delivery is pending").waitFor();
      await expect.poll(() => page.getByTestId("delivery-status").textContent()).toBe("pending");
      expect(await page.getByRole("button", { name: "Redeliver" }).isDisabled()).toBe(true);
      const [row] = await sql("SELECT status, attempts FROM webhook_deliveries WHERE id = $1", [id]);
      expect(row).toEqual({ status: "pending", attempts: 0 });
      await page.getByRole("link", { name: "Back to the webhooks" }).click();
      await page.waitForURL(/webhooks\?status=failed%2Cexhausted$/);
    });

    it("finds these actions in the audit log, filtered through the URL", async () => {
      await page.getByRole("link", { name: "Audit log" }).click();
      await page.getByRole("cell", { name: "keys.test.regenerate" }).waitFor();
      expect(await page.getByRole("cell", { name: "project.update" }).count()).toBeGreaterThanOrEqual(1);
      expect(await page.getByRole("cell", { name: "templates.create" }).count()).toBe(1);
      expect(await page.getByRole("cell", { name: "suppressions.create" }).count()).toBe(1);
      expect(await page.getByRole("cell", { name: "suppressions.delete" }).count()).toBe(1);
      expect(await page.getByRole("cell", { name: "webhook-deliveries.redeliver" }).count()).toBe(1);
      await shoot(page, "audit");
      await page.getByLabel("Action").fill("keys.test.regenerate");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/action=keys\.test\.regenerate/);
      await expect.poll(() => page.getByRole("cell", { name: "project.update" }).count()).toBe(0);
      expect(await page.getByRole("cell", { name: "keys.test.regenerate" }).count()).toBe(1);
      expect(await page.getByRole("cell", { name: owner, exact: true }).count()).toBe(1);
      // a reload keeps the filter (it lives in the URL)
      await page.reload();
      await page.getByRole("cell", { name: "keys.test.regenerate" }).waitFor();
      expect(await page.getByLabel("Action").inputValue()).toBe("keys.test.regenerate");
    });

    it("signs out; the pages then ask for sign-in again", async () => {
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL("**/dashboard/sign-in");
      await page.goto(`${stack.internal}/dashboard/p/${projectId}/keys`);
      await page.waitForURL(/\/dashboard\/sign-in\?next=/);
      const me = await page.evaluate(async () => (await fetch("/admin/auth/me")).status);
      expect(me).toBe(401);
    });
  });
});
