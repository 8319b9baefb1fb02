// Real: PostgreSQL, RabbitMQ, Redis, s3rver, the provider simulator, public-api, send-worker, webhook-dispatcher,
// and inbound-mail as its own process, killed with SIGKILL while it answers (and processes) a burst of replies.
import { waitFor } from "@emailsvc/testing";
import { inject, makeProject, sendEmail, type Stack, startReceiver, startStack } from "./harness";

jest.setTimeout(360_000);
let stack: Stack;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  stack = await startStack({
    inbound: "child",
    extraEnv: { INBOUND_PREFETCH: "2", LOG_LEVEL: "error", INBOUND_SYNC_BUDGET_MS: "1000" },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

const count = async (sql: string, params: unknown[]) =>
  Number(
    (await stack.db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`, params)).rows[0]!.n,
  );

it("loses and duplicates nothing when inbound-mail is SIGKILLed while it answers a burst of replies", async () => {
  const p = await makeProject(stack.db, { live: receiver.url("/kill") });
  const sent = await sendEmail(stack, p.liveKey, p);
  const N = 60;
  const pdf = Buffer.alloc(8 * 1024, 1).toString("base64");
  // The receiver processes each notification before it answers: the kill lands on requests in flight, some
  // stored and not finished (their held outbox rows hand them to the consumer), some not stored at all (SNS
  // delivers them again).
  const injecting: Promise<Awaited<ReturnType<typeof inject>>>[] = [];
  const burst = (async () => {
    for (let i = 0; i < N; i += 10) {
      const wave = Array.from({ length: Math.min(10, N - i) }, (_, j) =>
        inject(stack, {
          from: sent.recipient,
          to: `r-${sent.replyToken}@inbound.test`,
          subject: `Re: ${sent.subject}`,
          text: `reply ${i + j}`,
          messageId: `<kill-${i + j}-${Date.now()}@example.org>`,
          attachments: [{ filename: `doc-${i + j}.pdf`, content: pdf, contentType: "application/pdf" }],
        }),
      );
      injecting.push(...wave);
      await Promise.all(wave);
    }
  })();
  await waitFor(
    async () => (await count("inbound_messages WHERE project_id = $1", [p.projectId])) >= 5,
    60_000,
    "some replies processed",
    20,
  );
  const killed = stack.inbound.child!.proc;
  await stack.inbound.stop("SIGKILL");
  expect(killed.signalCode).toBe("SIGKILL");
  // nothing answers on its port any more: the process that held it is gone
  await expect(fetch(`${stack.inbound.url}/healthz`)).rejects.toThrow();
  await burst;
  const injected = await Promise.all(injecting);
  expect(injected).toHaveLength(N);
  const ids = injected.map((r) => r.messageId);
  const doneAtKill = await count(
    "inbound_notifications WHERE ses_message_id = ANY($1) AND status <> 'received'",
    [ids],
  );
  expect(doneAtKill).toBeLessThan(N);

  await stack.startInbound("child", {
    INBOUND_PREFETCH: "8",
    LOG_LEVEL: "error",
    INBOUND_SYNC_BUDGET_MS: "1000",
  });
  // SNS delivers again what the dead process never acknowledged
  for (const r of injected.filter((x) => x.status !== "delivered")) {
    const record = stack.sim.state.notifications.find((n) => n.sesMessageId === r.messageId)!;
    const res = await fetch(`${stack.inbound.url}/api/inbound/provider`, {
      method: "POST",
      headers: { "content-type": "text/plain; charset=UTF-8" },
      body: JSON.stringify(record.body),
    });
    expect(res.status).toBe(200);
  }
  await waitFor(
    async () =>
      (await count("inbound_notifications WHERE ses_message_id = ANY($1) AND status = 'processed'", [
        ids,
      ])) === N,
    120_000,
    "every reply processed after the restart",
    250,
  );
  expect(await count("inbound_messages WHERE project_id = $1", [p.projectId])).toBe(N);
  expect(await count("inbound_attachments WHERE project_id = $1", [p.projectId])).toBe(N);
  await waitFor(
    () => receiver.hits.filter((h) => h.path === "/kill").length >= N,
    60_000,
    "every webhook",
    100,
  );
  await new Promise((r) => setTimeout(r, 1000));
  const bodies = receiver.hits
    .filter((h) => h.path === "/kill")
    .map((h) => JSON.parse(h.body).data.message_id);
  expect(bodies).toHaveLength(N);
  expect(new Set(bodies).size).toBe(N);
  expect(
    await count("webhook_deliveries WHERE project_id = $1 AND status = 'succeeded'", [p.projectId]),
  ).toBe(N);
});
