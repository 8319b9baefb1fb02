// Real: @aws-sdk/client-sesv2 (through `endpoint`), the simulator's HTTP server. Nothing mocked.
import { SendEmailCommand, type SESv2Client } from "@aws-sdk/client-sesv2";
import {
  classifyProviderError,
  createDomainIdentity,
  createEmailAddressIdentity,
  deleteIdentity,
  getAccount,
  getIdentity,
  isProviderTimeout,
  sendRawEmail,
  setMailFromDomain,
} from "@emailsvc/provider";
import { sesFor, startSimulator } from "./helpers";

const RAW = [
  "From: Shop <news@shop.example>",
  "To: alice@example.org",
  "Subject: Raw hello",
  "Message-ID: <raw-1@shop.example>",
  "MIME-Version: 1.0",
  "Content-Type: text/plain; charset=utf-8",
  "",
  "Hello from a raw message",
  "",
].join("\r\n");

const control = (base: string, path: string, init?: RequestInit) =>
  fetch(`${base}/_sim${path}`, { ...init, headers: { "content-type": "application/json" } });

describe("SES v2 API through the real SDK", () => {
  const sim = startSimulator();
  let ses: SESv2Client;
  let base: string;

  beforeAll(async () => {
    base = await sim.start();
    ses = sesFor(base);
  });
  afterAll(async () => {
    ses.destroy();
    await sim.stop();
  });
  beforeEach(async () => {
    await control(base, "/reset", { method: "POST" });
    await control(base, "/config", {
      method: "POST",
      body: JSON.stringify({ latencyMs: 0, maxSendRate: null, fault: null, enforceVerifiedSenders: false }),
    });
  });

  it("sends a raw message and lists it with its raw MIME and envelope (bcc only in the envelope)", async () => {
    const { messageId } = await sendRawEmail(ses, {
      from: "news@shop.example",
      to: ["alice@example.org"],
      bcc: ["audit@example.org"],
      raw: Buffer.from(RAW),
      configurationSet: "emailsvc",
      tags: { email_id: "em_1" },
    });
    expect(messageId).toMatch(/^[0-9a-f]{16}-[0-9a-f-]{36}-000000$/);

    const list = (await (await control(base, `/messages?to=alice@example.org`)).json()) as any;
    expect(list.count).toBe(1);
    const m = list.messages[0];
    expect(m).toMatchObject({
      id: messageId,
      from: "news@shop.example",
      to: ["alice@example.org"],
      bcc: ["audit@example.org"],
      subject: "Raw hello",
      configurationSet: "emailsvc",
      tags: { email_id: "em_1" },
    });
    expect(m.raw).toBe(RAW);
    expect(Object.values(list.perSecond)).toEqual([1]);
    expect(await (await control(base, "/messages/count?to=audit@example.org")).json()).toEqual({ count: 1 });
    expect(await (await control(base, "/messages/count?to=nobody@example.org")).json()).toEqual({ count: 0 });
  });

  it("sends Simple content and stores the MIME SES would build", async () => {
    const out = await ses.send(
      new SendEmailCommand({
        FromEmailAddress: "Shop <news@shop.example>",
        Destination: { ToAddresses: ["bob@example.org"], CcAddresses: ["carol@example.org"] },
        Content: {
          Simple: {
            Subject: { Data: "Grüße" },
            Body: { Text: { Data: "plain body" }, Html: { Data: "<p>html body</p>" } },
          },
        },
      }),
    );
    const m = (await (await control(base, `/messages/${out.MessageId}`)).json()) as any;
    expect(m.subject).toBe("Grüße");
    expect(m.from).toBe("news@shop.example");
    expect(m.to).toEqual(["bob@example.org"]);
    expect(m.cc).toEqual(["carol@example.org"]);
    expect(m.raw).toContain("multipart/alternative");
    expect(m.raw).toContain("plain body");
    expect(m.raw).toMatch(/Subject: =\?UTF-8\?/i);
  });

  it("runs the identity life cycle: DKIM tokens, MAIL FROM, verify / fail through the control API, delete", async () => {
    const created = await createDomainIdentity(ses, "shop.example");
    expect(created.dkimTokens).toHaveLength(3);
    expect(new Set(created.dkimTokens).size).toBe(3);
    for (const t of created.dkimTokens) expect(t).toMatch(/^[a-z2-7]{32}$/);

    await setMailFromDomain(ses, "shop.example", "bounce.shop.example");
    let id = await getIdentity(ses, "shop.example");
    expect(id).toEqual({
      identityType: "DOMAIN",
      verifiedForSending: false,
      verificationStatus: "PENDING",
      dkimStatus: "PENDING",
      mailFromStatus: "PENDING",
      mailFromDomain: "bounce.shop.example",
      dkimTokens: created.dkimTokens,
    });

    expect((await control(base, "/identities/shop.example/verify", { method: "POST" })).status).toBe(200);
    id = await getIdentity(ses, "shop.example");
    expect([id.verifiedForSending, id.verificationStatus, id.dkimStatus, id.mailFromStatus]).toEqual([
      true,
      "SUCCESS",
      "SUCCESS",
      "SUCCESS",
    ]);

    await control(base, "/identities/shop.example/fail", { method: "POST" });
    id = await getIdentity(ses, "shop.example");
    expect([id.verifiedForSending, id.verificationStatus, id.dkimStatus]).toEqual([
      false,
      "FAILED",
      "FAILED",
    ]);

    const listed = (await (await control(base, "/identities")).json()) as any;
    expect(listed.identities.map((i: any) => i.identity)).toEqual(["shop.example"]);

    // Creating it twice is refused the way SES refuses it.
    const dup = await createDomainIdentity(ses, "shop.example").catch((e: Error) => e);
    expect((dup as Error).name).toBe("AlreadyExistsException");

    // A MAIL FROM outside the domain is a validation error.
    const bad = await setMailFromDomain(ses, "shop.example", "bounce.other.example").catch((e: Error) => e);
    expect((bad as Error).name).toBe("BadRequestException");
    expect(classifyProviderError(bad)).toBe("permanent");

    await setMailFromDomain(ses, "shop.example", null);
    expect((await getIdentity(ses, "shop.example")).mailFromStatus).toBe("NOT_STARTED");

    expect(await deleteIdentity(ses, "shop.example")).toEqual({ deleted: true });
    expect(await deleteIdentity(ses, "shop.example")).toEqual({ deleted: false });
    const gone = await getIdentity(ses, "shop.example").catch((e: Error) => e);
    expect((gone as Error).name).toBe("NotFoundException");
    expect(classifyProviderError(gone)).toBe("permanent");
    expect((await control(base, "/identities/unknown.example/verify", { method: "POST" })).status).toBe(404);
  });

  it("records a verification mail for an email address identity", async () => {
    expect(await createEmailAddressIdentity(ses, "owner@example.org")).toEqual({ verifiedForSending: false });
    const list = (await (await control(base, "/messages?to=owner@example.org")).json()) as any;
    expect(list.count).toBe(1);
    expect(list.messages[0].kind).toBe("verification");
    expect(list.messages[0].raw).toContain(`${base}/_sim/identities/owner%40example.org/verify`);
    const id = await getIdentity(ses, "owner@example.org");
    expect(id).toMatchObject({
      identityType: "EMAIL_ADDRESS",
      verificationStatus: "PENDING",
      dkimTokens: [],
    });
    await fetch(`${base}/_sim/identities/owner%40example.org/verify`);
    expect((await getIdentity(ses, "owner@example.org")).verifiedForSending).toBe(true);
  });

  it("answers GetAccount with the configured send rate", async () => {
    await control(base, "/config", { method: "POST", body: JSON.stringify({ maxSendRate: 7 }) });
    const account = await getAccount(ses);
    expect(account).toMatchObject({ sendingEnabled: true, productionAccessEnabled: true, maxSendRate: 7 });
  });

  it("throttles above maxSendRate with TooManyRequestsException, classified 'throttle', and counts it", async () => {
    await control(base, "/config", { method: "POST", body: JSON.stringify({ maxSendRate: 5 }) });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        sendRawEmail(ses, { from: "news@shop.example", to: [`r${i}@example.org`], raw: Buffer.from(RAW) }),
      ),
    );
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    expect(rejected).toHaveLength(7);
    const err = rejected[0]?.reason as Error & { $metadata: { httpStatusCode: number } };
    expect(err.name).toBe("TooManyRequestsException");
    expect(err.message).toBe("Maximum sending rate exceeded.");
    expect(err.$metadata.httpStatusCode).toBe(429);
    expect(classifyProviderError(err)).toBe("throttle");

    const stats = (await (await control(base, "/stats")).json()) as any;
    expect(stats).toMatchObject({ sendCount: 5, throttledCount: 7 });
    // The burst may straddle a calendar-second boundary, so only the bound and the total are exact.
    expect(stats.maxPerSecond).toBeLessThanOrEqual(5);
    expect(Object.values(stats.perSecond as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(5);
    expect(await (await control(base, "/messages/count")).json()).toEqual({ count: 5 });
  });

  it("injects latency, which a short SDK timeout reports as a transient timeout", async () => {
    await control(base, "/config", { method: "POST", body: JSON.stringify({ latencyMs: 300 }) });
    const t0 = Date.now();
    await getAccount(ses);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);

    const impatient = sesFor(base, { requestTimeoutMs: 100 });
    const err = await getAccount(impatient).catch((e: unknown) => e);
    impatient.destroy();
    expect(isProviderTimeout(err)).toBe(true);
    expect(classifyProviderError(err)).toBe("transient");
  });

  it("answers scripted 5xx faults (transient) and MessageRejected for unverified senders when enforced (permanent)", async () => {
    await control(base, "/config", {
      method: "POST",
      body: JSON.stringify({ fault: { count: 1, status: 503, errorType: "ServiceUnavailable" } }),
    });
    const fault = await sendRawEmail(ses, {
      from: "news@shop.example",
      to: ["a@example.org"],
      raw: Buffer.from(RAW),
    }).catch((e: unknown) => e);
    expect((fault as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(503);
    expect(classifyProviderError(fault)).toBe("transient");

    await control(base, "/config", {
      method: "POST",
      body: JSON.stringify({ enforceVerifiedSenders: true }),
    });
    const rejected = await sendRawEmail(ses, {
      from: "news@shop.example",
      to: ["a@example.org"],
      raw: Buffer.from(RAW),
    }).catch((e: unknown) => e);
    expect((rejected as Error).name).toBe("MessageRejected");
    expect(classifyProviderError(rejected)).toBe("permanent");

    await createDomainIdentity(ses, "shop.example");
    await control(base, "/identities/shop.example/verify", { method: "POST" });
    await expect(
      sendRawEmail(ses, { from: "news@shop.example", to: ["a@example.org"], raw: Buffer.from(RAW) }),
    ).resolves.toHaveProperty("messageId");
  });
});
