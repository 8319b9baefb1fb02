// Nothing lost, nothing twice (issue 24): three campaign-dispatcher replicas share campaigns through row locks, and
// a replica SIGKILLed in the middle of a campaign (its transaction rolled back by PostgreSQL) loses nothing: every
// recipient reaches the provider exactly once, counted at the simulator.
import { sleep } from "@emailsvc/testing";
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

jest.setTimeout(300_000);

let stack: Stack;
let p: TestProject;

beforeAll(async () => {
  stack = await startStack({
    dispatchers: 3,
    env: {
      // 200 sends a second, at most a second's worth in flight: the campaigns take several seconds of cycles
      SEND_RATE_PER_SECOND: "200",
      CAMPAIGN_BACKLOG_SECONDS: "1",
      CAMPAIGN_DISPATCH_INTERVAL_MS: "300",
    },
  });
  p = await campaignProject(stack);
});
afterAll(async () => {
  await stack?.close();
});

async function campaignTo(tag: string) {
  const res = await stack.admin("POST", `/projects/${p.projectId}/campaigns`, {
    name: `to ${tag}`,
    subject: "Hi {{first_name}}",
    html: "<p>Hi {{first_name}}</p>",
    sender_email: p.sender,
    audience: { tags: [tag] },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.campaign.id as string;
}

/** Every one of the n addresses received exactly one email. */
async function expectEachOnce(prefix: string, n: number) {
  const counts = await simCounts(stack, (to) => to.startsWith(`${prefix}-`));
  expect({ recipients: counts.size, twice: [...counts.entries()].filter(([, k]) => k !== 1) }).toEqual({
    recipients: n,
    twice: [],
  });
}

it("3 replicas over 2,000 recipients: exactly 2,000 provider sends", async () => {
  await seedLeads(stack, p.projectId, 2000, { prefix: "rep", tag: "rep" });
  const id = await campaignTo("rep");
  const done = await waitStatus(stack, p.projectId, id, ["completed"], 180_000);
  expect(done.stats).toMatchObject({
    recipients: 2000,
    sent: 2000,
    skipped: 0,
    failed: 0,
    pending: 0,
    queued: 0,
  });
  await expectEachOnce("rep", 2000);
});

it("a dispatcher SIGKILLed mid-campaign (twice) loses no recipient and sends none twice", async () => {
  await seedLeads(stack, p.projectId, 1000, { prefix: "kill", tag: "kill" });
  const id = await campaignTo("kill");
  for (const at of [200, 600]) {
    for (;;) {
      const c = await show(stack, p.projectId, id);
      if (c.dispatched >= at) break;
      await sleep(50);
    }
    // the replica dispatching right now is unknown: kill one, then another, and start a fresh one each time
    await stack.kill(stack.dispatchers[0]!);
    await stack.startDispatcher();
  }
  const done = await waitStatus(stack, p.projectId, id, ["completed"], 180_000);
  expect(done.stats).toMatchObject({ recipients: 1000, sent: 1000, skipped: 0, failed: 0 });
  await expectEachOnce("kill", 1000);
});
