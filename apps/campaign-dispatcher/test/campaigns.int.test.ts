// Campaigns end to end through the real stack (stack.ts): the admin API creates, campaign-dispatcher writes the
// ledger and dispatches through the shared send model, send-worker sends to the simulator, whose notifications
// and our tracking hits move the recipients along (spec 3), and POST /trigger-campaign answers as spec 4.8 says.
import { simpleParser } from "mailparser";
import { waitFor } from "@emailsvc/testing";
import {
  campaignProject,
  seedLeads,
  show,
  simCounts,
  type Stack,
  startStack,
  type TestProject,
  waitStatus,
} from "./stack";

jest.setTimeout(180_000);

let stack: Stack;
let p: TestProject;

beforeAll(async () => {
  stack = await startStack({
    env: {
      // an hour lasts 200 ms: batch intervals and send_over_hours in seconds; a warm-up day is 4.8 s
      CAMPAIGN_HOUR_MS: "200",
      REPUTATION_MIN_SENDS: "20",
      PROVIDER_QUOTA_REFRESH_MS: "300",
      PROVIDER_QUOTA_RECHECK_MS: "1000",
    },
  });
  p = await campaignProject(stack);
});
afterAll(async () => {
  await stack?.close();
});

const body = (over: Record<string, unknown> = {}) => ({
  name: "Spring sale",
  subject: "Hello {{first_name}}",
  html: '<html><body><p>Hi {{first_name}}, your plan is {{plan}}.</p><a href="https://shop.example/sale">Shop</a></body></html>',
  sender_email: p.sender,
  sender_name: "News Team",
  audience: { tags: ["spring"] },
  ...over,
});

async function create(over: Record<string, unknown> = {}) {
  const res = await stack.admin("POST", `/projects/${p.projectId}/campaigns`, body(over));
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.campaign as { id: string; status: string };
}

const ledger = async (campaignId: string) =>
  (
    await stack.db.pool.query<{ id: string; email: string; status: string; reason: string | null }>(
      "SELECT id, email, status, reason FROM campaign_recipients WHERE campaign_id = $1 ORDER BY id",
      [campaignId],
    )
  ).rows;

describe("a campaign from creation to completed (spec 3)", () => {
  let id: string;
  beforeAll(async () => {
    await seedLeads(stack, p.projectId, 30, { prefix: "flow", tag: "spring" });
  });

  it("is created initializing, gets its ledger (pending) and is dispatched to every recipient once", async () => {
    const c = await create();
    id = c.id;
    expect(c.status).toBe("initializing");
    const done = await waitStatus(stack, p.projectId, id, ["completed"]);
    expect(done.total_recipients).toBe(30);
    expect(done.stats).toMatchObject({
      recipients: 30,
      pending: 0,
      queued: 0,
      sent: 30,
      failed: 0,
      skipped: 0,
    });
    const counts = await simCounts(stack, (to) => to.startsWith("flow-"));
    expect(counts.size).toBe(30);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    // one ledger row per lead, each with its activity (same id), carrying the campaign
    const rows = await ledger(id);
    expect(rows).toHaveLength(30);
    const acts = await stack.db.pool.query(
      "SELECT count(*)::int AS n FROM activities WHERE id = ANY($1::uuid[]) AND campaign_id = $2",
      [rows.map((r) => r.id), id],
    );
    expect(acts.rows[0].n).toBe(30);
  });

  it("sends the MIME with one-click unsubscribe (RFC 8058), the footer with the postal address and the human Reply-To", async () => {
    const res = await fetch(`${stack.simUrl}/_sim/messages?to=flow-7@example.org`);
    const [m] = ((await res.json()) as { messages: { raw: string }[] }).messages;
    const mail = await simpleParser(m!.raw);
    const header = (name: string) =>
      mail.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, "");
    const unsub = header("list-unsubscribe")!;
    expect(unsub).toMatch(new RegExp(`^<${stack.ingestUrl}/t/u/[0-9a-f-]{36}\\?sig=[^>]+>$`));
    expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(mail.replyTo?.value).toEqual([{ name: "News Team", address: p.sender }]);
    expect(mail.subject).toBe("Hello Name7");
    expect(mail.html).toContain("Hi Name7, your plan is gold.");
    expect(mail.html).toContain("1 Test Street, Testville");
    expect(mail.text).toContain("1 Test Street, Testville");
    expect(mail.text).toContain(`Unsubscribe: ${unsub.slice(1, -1)}`);
  });

  it("moves a recipient along its activity: sent, delivered, opened, clicked", async () => {
    const [row] = (await ledger(id)).filter((r) => r.email === "flow-3@example.org");
    // the simulator's Delivery notification has been applied by notification-ingest
    await waitFor(
      async () => (await ledger(id)).find((r) => r.id === row!.id)?.status === "delivered",
      30_000,
    );
    const open = await fetch(`${stack.ingestUrl}/t/o/${row!.id}`);
    expect(open.status).toBe(200);
    await waitFor(async () => (await ledger(id)).find((r) => r.id === row!.id)?.status === "opened", 10_000);
    const res = await fetch(`${stack.simUrl}/_sim/messages?to=flow-3@example.org`);
    const [m] = ((await res.json()) as { messages: { raw: string }[] }).messages;
    const html = (await simpleParser(m!.raw)).html as string;
    const click = html.match(/href="([^"]*\/t\/c\/[^"]+)"/)![1]!.replace(/&amp;/g, "&");
    expect((await fetch(click, { redirect: "manual" })).status).toBe(302);
    await waitFor(async () => (await ledger(id)).find((r) => r.id === row!.id)?.status === "clicked", 10_000);
    const c = await show(stack, p.projectId, id);
    expect(c.stats).toMatchObject({ opened: 1, clicked: 1 });
    expect(c.stats.delivered).toBeGreaterThanOrEqual(1);
  });
});
