import { randomBytes, randomUUID } from "node:crypto";
import { signSnsMessage } from "@emailsvc/provider";
import { request } from "undici";
import type { SimContext } from "../context";
import type { SimSubscription } from "../state/types";

export type SubscribeTarget = SimSubscription["target"];

/**
 * Posts a signed SNS SubscriptionConfirmation to the inbound (inbound-mail) or provider (notification-ingest)
 * receiver, as SNS does when a topic gets an HTTP(S) subscription, and waits for its answer. Its SubscribeURL points
 * back at the simulator (`/_sim/confirm-subscription`), which records the visit: a receiver that confirms
 * automatically (spec 4.9) has visited it by the time it answers. Null when the target has no URL configured.
 */
export async function postSubscriptionConfirmation(
  ctx: SimContext,
  target: SubscribeTarget,
  opts: { privateKeyPem: string; topicArn: string; timeoutMs: number },
): Promise<SimSubscription | null> {
  const url =
    target === "inbound" ? ctx.state.config.inboundNotificationUrl : ctx.state.config.notificationUrl;
  if (!url) return null;
  const topicArn = target === "inbound" ? ctx.inboundTopicArn : opts.topicArn;
  const token = randomBytes(32).toString("hex");
  const subscribeUrl =
    `${ctx.publicUrl()}/_sim/confirm-subscription?Action=ConfirmSubscription` +
    `&TopicArn=${encodeURIComponent(topicArn)}&Token=${token}`;
  const messageId = randomUUID();
  const body = signSnsMessage(
    {
      Type: "SubscriptionConfirmation",
      MessageId: messageId,
      Token: token,
      TopicArn: topicArn,
      Message:
        `You have chosen to subscribe to the topic ${topicArn}.\n` +
        "To confirm the subscription, visit the SubscribeURL included in this message.",
      SubscribeURL: subscribeUrl,
      Timestamp: new Date().toISOString(),
    },
    { privateKeyPem: opts.privateKeyPem, certUrl: `${ctx.publicUrl()}/_sim/cert.pem` },
  );
  const sub: SimSubscription = {
    target,
    url,
    topicArn,
    messageId,
    token,
    subscribeUrl,
    postedAt: new Date().toISOString(),
    answer: null,
    confirmedAt: null,
    confirmedBy: null,
    subscriptionArn: null,
  };
  ctx.state.subscriptions.push(sub);
  try {
    const res = await request(url, {
      method: "POST",
      headers: {
        // as SNS posts it: JSON under text/plain, no subscription ARN yet
        "content-type": "text/plain; charset=UTF-8",
        "x-amz-sns-message-type": "SubscriptionConfirmation",
        "x-amz-sns-message-id": messageId,
        "x-amz-sns-topic-arn": topicArn,
        "user-agent": "Amazon Simple Notification Service Agent",
      },
      body: JSON.stringify(body),
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
    sub.answer = { status: res.statusCode, body: await res.body.text() };
  } catch (err) {
    sub.error = (err as Error).message;
  }
  return sub;
}

/** The SubscribeURL's target: marks the subscription confirmed; undefined for a token it never sent. */
export function confirmSubscription(
  ctx: SimContext,
  token: string,
  visitor: string | null,
): SimSubscription | undefined {
  const sub = ctx.state.subscriptions.find((s) => s.token === token);
  if (!sub) return undefined;
  if (!sub.confirmedAt) {
    sub.confirmedAt = new Date().toISOString();
    sub.confirmedBy = visitor;
    sub.subscriptionArn = `${sub.topicArn}:${randomUUID()}`;
  }
  return sub;
}
