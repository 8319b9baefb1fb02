// Real: @aws-sdk/client-sesv2 (through `endpoint`), the simulator's HTTP server. Nothing mocked.
import { SendEmailCommand } from "@aws-sdk/client-sesv2";
import { sesFor, startSimulator } from "./helpers";

const sim = startSimulator({ maxMessagesKept: 50 });
let base: string;
beforeAll(async () => {
  base = await sim.start();
});
afterAll(() => sim.stop());

const get = async (path: string) => (await fetch(`${base}/_sim${path}`)).json() as Promise<any>;

async function send(n: number, tag: string): Promise<string[]> {
  const ses = sesFor(base);
  const ids: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, (_v, j) =>
      ses.send(
        new SendEmailCommand({
          FromEmailAddress: "news@shop.example",
          Destination: { ToAddresses: [`${tag}${i + j}@example.org`] },
          Content: { Simple: { Subject: { Data: "s" }, Body: { Text: { Data: "b" } } } },
        }),
      ),
    );
    for (const r of await Promise.all(batch)) ids.push(r.MessageId!);
  }
  return ids;
}

describe("the simulator's bounded message store", () => {
  it("keeps only the latest maxMessagesKept messages, while counts stay exact", async () => {
    const ids = await send(130, "cap");
    expect(await get("/messages/count")).toEqual({ count: 130 });
    expect(await get("/messages/count?kind=email")).toEqual({ count: 130 });
    expect(await get("/messages/count?kind=verification")).toEqual({ count: 0 });
    const all = await get("/messages");
    expect(all.count).toBe(130);
    expect(all.messages.length).toBeGreaterThan(0);
    expect(all.messages.length).toBeLessThanOrEqual(50);
    // the kept ones are the latest, in order
    expect(all.messages.map((m: { id: string }) => m.id)).toEqual(ids.slice(-all.messages.length));
    expect((await fetch(`${base}/_sim/messages/${ids[0]}`)).status).toBe(404);
    expect((await fetch(`${base}/_sim/messages/${ids[129]}`)).status).toBe(200);
    // a recipient filter looks among the kept messages
    expect(await get("/messages/count?to=cap129@example.org")).toEqual({ count: 1 });
    expect(await get("/stats")).toMatchObject({ sendCount: 130, messagesAccepted: 130 });
    expect((await get("/stats")).messagesStored).toBeLessThanOrEqual(50);
  });

  it("takes a new cap through /_sim/config, and a reset sets the counts back to 0", async () => {
    await fetch(`${base}/_sim/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ maxMessagesKept: 5 }),
    });
    await send(20, "small");
    expect(await get("/messages/count")).toEqual({ count: 150 });
    expect((await get("/messages")).messages.length).toBeLessThanOrEqual(5);
    await fetch(`${base}/_sim/reset`, { method: "POST" });
    expect(await get("/messages/count")).toEqual({ count: 0 });
    await send(3, "after");
    expect(await get("/messages")).toMatchObject({ count: 3 });
  });
});
