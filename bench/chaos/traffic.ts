/**
 * The chaos run's mixed traffic, each kind in its own loop at its own pace until `stopAt`, every accepted item
 * written down in the ledger the invariants are checked against. Clients retry as careful clients do (client.ts).
 */
import { createHmac, randomUUID } from "node:crypto";
import { createS3Client, putObject } from "@emailsvc/provider";
import { clickUrl, openPixelUrl } from "@emailsvc/content";
import { signedReceivedNotification } from "../lib/inbound-notification";
import { shopWebhook } from "../lib/shop-webhooks";
import type { Demo } from "../lib/stack";
import type { Client } from "./client";

export interface SendRecord {
  kind: "single" | "template" | "batch" | "scheduled";
  key: string;
  isTest: boolean;
  recipients: string[];
  /** email_id (single, template) or batch_id of every 200 answer, deliberate replays included: one, or a bug */
  results: Set<string>;
  /** activity ids the answer named (batch, scheduled) */
  activityIds: string[];
  accepted: boolean;
  replayed: number;
}

export interface Ledger {
  runId: string;
  startedAt: Date;
  sends: SendRecord[];
  events: { key: string; accepted: boolean }[];
  shop: { webhookId: string; topic: string; accepted: boolean }[];
  inbound: { sesMessageId: string; accepted: boolean }[];
  tracking: { activityId: string; kind: "open" | "click"; accepted: boolean }[];
  campaignId: string | null;
  campaignRecipients: string[];
  /** answers that were neither accepted nor retried into acceptance (4xx other than a replay), by route */
  refused: Map<string, number>;
}

export interface TrafficSetup {
  d: Demo;
  client: Client;
  ledger: Ledger;
  templateId: string;
  shop: { domain: string; secret: string };
  /** test-mode activities with reply tokens, written at set-up, that the replies answer */
  replyTargets: { token: string; recipient: string }[];
  s3Endpoint: string;
  trackingSecret: string;
  inboundDomain: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` every `everyMs` (not waiting for the previous one: a slow answer must not slow the load) until stopAt. */
async function paced(everyMs: number, stop: { at: number }, fn: (n: number) => Promise<void>): Promise<void> {
  const running: Promise<void>[] = [];
  for (let n = 0; Date.now() < stop.at; n++) {
    running.push(fn(n).catch((err: unknown) => console.error(`  traffic error: ${(err as Error).message}`)));
    await sleep(everyMs);
  }
  await Promise.all(running);
}

/** Until `stop.at`, which the fault schedule may push back: the traffic runs until the last fault is over. */
export async function runTraffic(s: TrafficSetup, stop: { at: number }, rate: number): Promise<void> {
  const { d, client, ledger } = s;
  const run = ledger.runId;
  const gw = d.base_url;
  // a client gives up retrying a minute after the traffic stopped (the faults are over by then)
  const giveUp = () => stop.at + 60_000;
  const bearer = (isTest: boolean) => ({ authorization: `Bearer ${isTest ? d.test_key : d.live_key}` });
  const refused = (route: string, body?: string) => {
    if (!ledger.refused.has(route)) console.log(`  refused: ${route} ${body?.slice(0, 200) ?? ""}`);
    ledger.refused.set(route, (ledger.refused.get(route) ?? 0) + 1);
  };
  /** batch activities and when they were accepted: a pixel loads once the email has arrived, not before */
  const batchActivities: { id: string; at: number }[] = [];

  /** One send with its Idempotency-Key, retried; `replay` sends the same request once more after it was accepted. */
  const send = async (rec: SendRecord, route: string, url: string, body: unknown, replay: boolean) => {
    ledger.sends.push(rec);
    const raw = JSON.stringify(body);
    const headers = { ...bearer(rec.isTest), "idempotency-key": rec.key };
    const once = () => client.call("POST", url, route, raw, headers);
    const note = (a: Awaited<ReturnType<typeof once>>) => {
      if (a?.status !== 200 || !a.json) return false;
      const id = (a.json.email_id ?? a.json.batch_id) as string | undefined;
      if (id) rec.results.add(id);
      const acts = a.json.activities as { activity_id: string }[] | undefined;
      if (acts && !rec.activityIds.length) rec.activityIds.push(...acts.map((x) => x.activity_id));
      if (a.headers["idempotency-replayed"] === "true") rec.replayed++;
      return true;
    };
    const a = await client.retry(once, giveUp);
    rec.accepted = note(a);
    if (!rec.accepted) return refused(`${route} ${a?.status ?? "network"}`, a?.text);
    if (replay) note(await client.retry(once, giveUp));
  };

  const simAddr = (tag: string, n: number) => `success+${tag}-${run}-${n}@simulator.amazonaws.com`;

  await Promise.all([
    // v1 single sends, live and test in turn; every 10th replayed on purpose
    paced(1000 / (5 * rate), stop, async (n) => {
      const to = simAddr("s", n);
      await send(
        {
          kind: "single",
          key: `${run}-s-${n}`,
          isTest: n % 2 === 1,
          recipients: [to],
          results: new Set(),
          activityIds: [],
          accepted: false,
          replayed: 0,
        },
        "POST /v1/send-email",
        `${gw}/v1/send-email`,
        {
          recipient_email: to,
          sender_email: d.sender_email,
          subject: "Chaos {{n}}",
          html_body: '<p>Hello {{n}}, <a href="https://example.com/chaos">a link</a></p>',
          data: { n },
        },
        n % 10 === 0,
      );
    }),
    // template sends
    paced(1000 / (2 * rate), stop, async (n) => {
      const to = simAddr("t", n);
      await send(
        {
          kind: "template",
          key: `${run}-t-${n}`,
          isTest: n % 2 === 0,
          recipients: [to],
          results: new Set(),
          activityIds: [],
          accepted: false,
          replayed: 0,
        },
        "POST /v1/send-template-email",
        `${gw}/v1/send-template-email`,
        {
          template_id: s.templateId,
          recipient_email: to,
          sender_email: d.sender_email,
          variables: { name: `T${n}` },
        },
        n % 10 === 5,
      );
    }),
    // batches of 5, transactional and marketing
    paced(4000 / rate, stop, async (n) => {
      const recipients = Array.from({ length: 5 }, (_, i) => simAddr("b", n * 5 + i));
      const rec: SendRecord = {
        kind: "batch",
        key: `${run}-b-${n}`,
        isTest: n % 2 === 0,
        recipients,
        results: new Set(),
        activityIds: [],
        accepted: false,
        replayed: 0,
      };
      await send(
        rec,
        "POST /v1/send-batch",
        `${gw}/v1/send-batch`,
        {
          sender: d.sender_email,
          subject: "Batch {{i}}",
          html: '<p>Batch {{i}} <a href="https://example.com/b">link</a></p>',
          email_type: n % 2 ? "marketing" : "transactional",
          recipients: recipients.map((email, i) => ({ email, data: { i } })),
        },
        false,
      );
      batchActivities.push(...rec.activityIds.map((id) => ({ id, at: Date.now() })));
    }),
    // scheduled batches of 3, due 20-40 s later (the scheduler polls every 30 s)
    paced(10_000 / rate, stop, async (n) => {
      const recipients = Array.from({ length: 3 }, (_, i) => simAddr("sch", n * 3 + i));
      await send(
        {
          kind: "scheduled",
          key: `${run}-sch-${n}`,
          isTest: n % 2 === 1,
          recipients,
          results: new Set(),
          activityIds: [],
          accepted: false,
          replayed: 0,
        },
        "POST /v1/send-batch (scheduled)",
        `${gw}/v1/send-batch`,
        {
          sender: d.sender_email,
          subject: "Later {{i}}",
          html: "<p>Scheduled {{i}}</p>",
          email_type: "transactional",
          scheduled_at: new Date(Date.now() + 20_000 + (n % 5) * 5_000).toISOString(),
          recipients: recipients.map((email, i) => ({ email, data: { i } })),
        },
        n % 4 === 0,
      );
    }),
    // custom events, each with its Idempotency-Key (lead_events' unique key)
    paced(1000 / (4 * rate), stop, async (n) => {
      const key = `${run}-e-${n}`;
      const rec = { key, accepted: false };
      ledger.events.push(rec);
      const body = JSON.stringify({
        email: `lead-${run}-${n % 50}@example.org`,
        event: "chaos_event",
        properties: { n },
      });
      const a = await client.retry(
        () =>
          client.call("POST", `${gw}/v1/events`, "POST /v1/events", body, {
            ...bearer(false),
            "idempotency-key": key,
          }),
        giveUp,
      );
      rec.accepted = a?.status === 201 || a?.status === 200;
      if (!rec.accepted) refused(`POST /v1/events ${a?.status ?? "network"}`);
    }),
    // shop webhooks (signed), retried by webhook id; 409 = already stored (the platform's retry of an accepted one)
    paced(1000 / (2 * rate), stop, async (n) => {
      const topic = shopWebhook(run, n).topic;
      const webhookId = `${run}-w-${n}`;
      const rec = { webhookId, topic, accepted: false };
      ledger.shop.push(rec);
      const { raw } = shopWebhook(run, n, 50);
      const headers = {
        "x-shop-shop-domain": s.shop.domain,
        "x-project-id": d.project_id,
        "x-shop-webhook-id": webhookId,
        "x-shop-hmac-sha256": createHmac("sha256", s.shop.secret).update(raw).digest("base64"),
      };
      const a = await client.retry(
        () => client.call("POST", `${gw}/webhooks/shop/${topic}`, "POST /webhooks/shop/:topic", raw, headers),
        giveUp,
        false,
      );
      rec.accepted = a?.status === 200 || a?.status === 409;
      if (!rec.accepted) refused(`POST /webhooks/shop/:topic ${a?.status ?? "network"}`);
    }),
    // inbound replies: the MIME in the bucket, then SES receiving's signed notification, retried as SNS does
    (async () => {
      const s3 = createS3Client({
        region: "us-east-1",
        endpoint: s.s3Endpoint,
        accessKeyId: "S3RVER",
        secretAccessKey: "S3RVER",
      });
      await paced(1000 / rate, stop, async (n) => {
        const target = s.replyTargets[n % s.replyTargets.length]!;
        const sesMessageId = `chaos${run}${n}x${randomUUID().replace(/-/g, "").slice(0, 12)}`;
        const rec = { sesMessageId, accepted: false };
        ledger.inbound.push(rec);
        const to = `r-${target.token}@${s.inboundDomain}`;
        const mime = [
          `From: Customer <${target.recipient}>`,
          `To: Shop <${to}>`,
          `Subject: Re: chaos ${n}`,
          `Message-ID: <chaos-${run}-${n}@mail.example.org>`,
          "Date: Tue, 24 Nov 2026 10:15:04 +0100",
          "MIME-Version: 1.0",
          "Content-Type: text/plain; charset=UTF-8",
          "",
          `Reply ${n} of the chaos run.`,
          "",
        ].join("\r\n");
        await putObject(s3, { bucket: "inbound-mail", key: `inbound/${sesMessageId}`, body: mime });
        const body = signedReceivedNotification({
          sesMessageId,
          objectKey: `inbound/${sesMessageId}`,
          recipients: [to],
          simulatorUrl: d.simulator_url,
        });
        const a = await client.retry(
          () =>
            client.call("POST", `${gw}/api/inbound/provider`, "POST /api/inbound/provider", body, {
              "content-type": "text/plain; charset=UTF-8",
            }),
          giveUp,
        );
        rec.accepted = !!a && a.status >= 200 && a.status < 300;
        if (!rec.accepted) refused(`POST /api/inbound/provider ${a?.status ?? "network"}`);
      });
      s3.destroy();
    })(),
    // tracking: opens and clicks on the batches' activities
    paced(1000 / (2 * rate), stop, async (n) => {
      const arrived = batchActivities.filter((a) => a.at < Date.now() - 30_000);
      const activityId = arrived[arrived.length - 1 - (n % 20)]?.id;
      if (!activityId) return;
      const kind = n % 2 ? "click" : "open";
      const rec = { activityId, kind: kind as "open" | "click", accepted: false };
      ledger.tracking.push(rec);
      const url =
        kind === "open"
          ? openPixelUrl(gw, activityId)
          : clickUrl(gw, s.trackingSecret, activityId, "https://example.com/chaos");
      const a = await client.retry(
        () => client.call("GET", url, `GET /t/${kind === "open" ? "o" : "c"}/:id`),
        giveUp,
      );
      rec.accepted = a?.status === 200 || a?.status === 302;
      if (!rec.accepted) refused(`GET /t/${kind} ${a?.status ?? "network"}`);
    }),
  ]);
}
