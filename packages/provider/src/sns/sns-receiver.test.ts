import { createSnsReceiver, type SnsNotification, snsVerifierFromEnv } from "./sns-receiver";

// The receiver's decisions with a plain fake verifier (the verifier has its own tests against signed messages).
const logger = { warn: () => undefined, error: () => undefined };
const base = { Type: "Notification", MessageId: "m-1", TopicArn: "arn:aws:sns:us-east-1:1:t", Message: "{}" };

function receiver(over: Partial<Parameters<typeof createSnsReceiver>[0]> = {}) {
  const seen: SnsNotification[] = [];
  const confirmed: string[] = [];
  const unsubscribed: unknown[] = [];
  const handle = createSnsReceiver({
    verify: async (m) => {
      if (m.Signature === "bad") throw new Error("bad signature");
    },
    logger,
    onNotification: async (n) => {
      seen.push(n);
      return { messageId: n.MessageId };
    },
    onUnsubscribeConfirmation: async (m) => void unsubscribed.push(m),
    confirmSubscription: async (url) => void confirmed.push(url),
    ...over,
  });
  return { handle, seen, confirmed, unsubscribed };
}

describe("createSnsReceiver", () => {
  it("hands a verified Notification over and merges what the service answers", async () => {
    const r = receiver();
    expect(await r.handle(JSON.stringify(base))).toEqual({
      status: 200,
      body: { success: true, messageId: "m-1" },
    });
    expect(r.seen).toEqual([{ MessageId: "m-1", TopicArn: base.TopicArn, Message: "{}" }]);
  });

  it("refuses what is not an SNS message (400) and a bad signature (403), handing nothing over", async () => {
    const r = receiver();
    expect((await r.handle("not json")).status).toBe(400);
    expect((await r.handle(JSON.stringify({ no: "type" }))).status).toBe(400);
    expect(await r.handle(JSON.stringify({ ...base, Signature: "bad" }))).toEqual({
      status: 403,
      body: { success: false, error: "Invalid SNS signature" },
    });
    expect(r.seen).toEqual([]);
  });

  it("confirms a subscription only at an AWS SNS host over https", async () => {
    const r = receiver();
    const sub = (url: string) =>
      JSON.stringify({ ...base, Type: "SubscriptionConfirmation", SubscribeURL: url });
    const good = "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=x";
    expect((await r.handle(sub(good))).status).toBe(200);
    for (const bad of ["https://evil.example/confirm", "http://sns.eu-west-1.amazonaws.com/?x", "nonsense"])
      expect(await r.handle(sub(bad))).toEqual({
        status: 400,
        body: { success: false, error: "SubscribeURL is not an AWS SNS URL" },
      });
    expect(r.confirmed).toEqual([good]);
  });

  it("records an UnsubscribeConfirmation", async () => {
    const r = receiver();
    expect((await r.handle(JSON.stringify({ ...base, Type: "UnsubscribeConfirmation" }))).status).toBe(200);
    expect(r.unsubscribed).toHaveLength(1);
  });

  it("answers 500 when the service cannot take the notification, so SNS retries", async () => {
    const r = receiver({
      onNotification: async () => {
        throw new Error("database down");
      },
    });
    expect(await r.handle(JSON.stringify(base))).toEqual({
      status: 500,
      body: { success: false, error: "Could not accept the message, try again" },
    });
  });
});

describe("snsVerifierFromEnv: which SubscribeURLs a receiver visits", () => {
  const allowed = (env: Parameters<typeof snsVerifierFromEnv>[0], url: string) =>
    snsVerifierFromEnv(env).subscribeUrlAllowed!(new URL(url));
  it("production (no widening): https AWS SNS hosts only", () => {
    const env = { SNS_ALLOW_HTTP_CERT_URLS: false, SNS_TOPIC_ARNS: "" };
    expect(allowed(env, "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription")).toBe(true);
    expect(allowed(env, "http://sns.us-east-1.amazonaws.com/")).toBe(false);
    expect(allowed(env, "http://127.0.0.1:4566/_sim/confirm-subscription")).toBe(false);
    expect(allowed(env, "https://evil.example.com/")).toBe(false);
  });
  it("widened explicitly (dev stack, tests): the trusted certificate host, over http only when allowed", () => {
    const env = {
      SNS_CERT_HOST_PATTERN: "^127\\.0\\.0\\.1$",
      SNS_ALLOW_HTTP_CERT_URLS: true,
      SNS_TOPIC_ARNS: "",
    };
    expect(allowed(env, "http://127.0.0.1:4566/_sim/confirm-subscription")).toBe(true);
    expect(allowed(env, "http://10.0.0.1/")).toBe(false);
    expect(allowed({ ...env, SNS_ALLOW_HTTP_CERT_URLS: false }, "http://127.0.0.1:4566/")).toBe(false);
    expect(allowed({ ...env, SNS_ALLOW_HTTP_CERT_URLS: false }, "https://127.0.0.1:4566/")).toBe(true);
  });
});
