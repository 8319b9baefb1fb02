import { randomUUID } from "node:crypto";
import type { Logger } from "@emailsvc/observability";
import { Agent, request } from "undici";
import { signSnsMessage, type UnsignedSnsMessage } from "@emailsvc/provider";
import type { SimulatorState } from "../state/simulator-state";
import type { NotificationRecord, SimMessage } from "../state/types";
import { sesEventsFor } from "./ses-events";

export interface NotifierOptions {
  state: SimulatorState;
  logger: Logger;
  region: string;
  accountId: string;
  topicArn: string;
  inboundTopicArn: string;
  privateKeyPem: string;
  /** Resolved lazily: the public URL is known only after the server listens. */
  publicUrl: () => string;
  /** Extra attempts after the first when the receiver is down or answers non-2xx. */
  retries: number;
  retryDelayMs: number;
  concurrency: number;
  timeoutMs: number;
}

type Job = () => Promise<void>;

/**
 * Posts SNS-signed notifications in the background: SendEmail never waits for them. A message's events are
 * posted in order (Send before Delivery/Bounce); different messages go out concurrently, bounded so a
 * 5,000-message benchmark does not open 10,000 sockets at once.
 */
export class Notifier {
  private queue: Job[] = [];
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly subscriptionId = randomUUID();
  // undici's request on kept-alive connections, not fetch: fetch's streams and abort signals were most of the
  // simulator's CPU after signing, and the simulator shares the machine with the stack every benchmark measures.
  private readonly agent: Agent;

  constructor(private readonly o: NotifierOptions) {
    this.agent = new Agent({ connections: o.concurrency, keepAliveTimeout: 10_000 });
  }

  publishSesEvents(m: SimMessage): void {
    const bodies = sesEventsFor(m, { region: this.o.region, accountId: this.o.accountId });
    const records = bodies.map((event) =>
      this.record(
        "events",
        String(event.eventType),
        m.id,
        this.o.state.config.notificationUrl,
        this.o.topicArn,
        event,
      ),
    );
    this.enqueue(async () => {
      for (const r of records) await this.deliver(r);
    });
  }

  /** Resolves once the inbound notification is delivered, failed for good, or skipped (no URL configured). */
  publishInbound(sesMessageId: string, message: Record<string, unknown>): Promise<NotificationRecord> {
    const r = this.record(
      "inbound",
      "Received",
      sesMessageId,
      this.o.state.config.inboundNotificationUrl,
      this.o.inboundTopicArn,
      message,
    );
    return new Promise((resolve) => this.enqueue(() => this.deliver(r).finally(() => resolve(r))));
  }

  /** Resolves when nothing is queued or in flight (tests call it before asserting on the receiver). */
  flush(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    void this.agent.close().catch(() => undefined);
    this.queue = [];
    if (this.active === 0) this.wakeIdle();
  }

  private record(
    topic: NotificationRecord["topic"],
    eventType: string,
    sesMessageId: string,
    url: string | null,
    topicArn: string,
    payload: Record<string, unknown>,
  ): NotificationRecord {
    const snsMessageId = randomUUID();
    const publicUrl = this.o.publicUrl();
    // Signed only when posted (deliver): RSA signing is the simulator's main CPU cost under benchmark load.
    const body = {
      Type: "Notification",
      MessageId: snsMessageId,
      TopicArn: topicArn,
      Message: JSON.stringify(payload),
      Timestamp: new Date().toISOString(),
      UnsubscribeURL: `${publicUrl}/_sim/unsubscribe?SubscriptionArn=${encodeURIComponent(`${topicArn}:${this.subscriptionId}`)}`,
    };
    const r: NotificationRecord = {
      snsMessageId,
      topic,
      eventType,
      sesMessageId,
      url,
      status: url ? "pending" : "skipped",
      attempts: 0,
      body,
    };
    if (!url) this.o.state.notificationCounts.skipped++;
    this.o.state.addNotification(r);
    return r;
  }

  private enqueue(job: Job): void {
    if (this.stopped) return;
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.active < this.o.concurrency && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.active++;
      job()
        .catch((err: unknown) => this.o.logger.error({ err }, "notification job failed"))
        .finally(() => {
          this.active--;
          this.pump();
          if (this.active === 0 && (this.queue.length === 0 || this.stopped)) this.wakeIdle();
        });
    }
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async deliver(r: NotificationRecord): Promise<void> {
    if (!r.url) return;
    if (!r.body.Signature) {
      r.body = signSnsMessage(r.body as unknown as UnsignedSnsMessage, {
        privateKeyPem: this.o.privateKeyPem,
        certUrl: `${this.o.publicUrl()}/_sim/cert.pem`,
      }) as unknown as Record<string, unknown>;
    }
    const topicArn = String(r.body.TopicArn);
    const headers = {
      // Real SNS posts JSON with a text/plain content type; receivers must parse the raw body themselves.
      "content-type": "text/plain; charset=UTF-8",
      "x-amz-sns-message-type": "Notification",
      "x-amz-sns-message-id": r.snsMessageId,
      "x-amz-sns-topic-arn": topicArn,
      "x-amz-sns-subscription-arn": `${topicArn}:${this.subscriptionId}`,
      "user-agent": "Amazon Simple Notification Service Agent",
    };
    const payload = JSON.stringify(r.body);
    for (let attempt = 0; attempt <= this.o.retries; attempt++) {
      if (this.stopped) break;
      if (attempt > 0) await new Promise((res) => setTimeout(res, this.o.retryDelayMs * 2 ** (attempt - 1)));
      r.attempts++;
      try {
        const res = await request(r.url, {
          method: "POST",
          headers,
          body: payload,
          dispatcher: this.agent,
          headersTimeout: this.o.timeoutMs,
          bodyTimeout: this.o.timeoutMs,
        });
        await res.body.dump().catch(() => undefined);
        if (res.statusCode >= 200 && res.statusCode < 300) {
          r.status = "delivered";
          delete r.lastError;
          this.o.state.notificationCounts.delivered++;
          return;
        }
        r.lastError = `HTTP ${res.statusCode}`;
      } catch (err) {
        r.lastError = (err as Error).message;
      }
    }
    r.status = "failed";
    this.o.state.notificationCounts.failed++;
    this.o.logger.warn(
      { url: r.url, eventType: r.eventType, attempts: r.attempts, error: r.lastError },
      "notification not delivered",
    );
  }
}
