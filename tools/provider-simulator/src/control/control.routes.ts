import express, { type NextFunction, type Request, type Response, Router } from "express";
import { z } from "zod";
import type { SimContext } from "../context";
import { settleIdentity } from "../ses/identities";
import type { SimMessage } from "../state/types";
import { injectInbound, injectInboundBody } from "./inject-inbound";
import { confirmSubscription, postSubscriptionConfirmation } from "./subscribe";

const configPatch = z
  .object({
    latencyMs: z.number().int().min(0).max(120_000),
    /** null or 0 = unlimited. */
    maxSendRate: z.number().int().min(0).nullable(),
    notificationUrl: z.string().url().nullable(),
    inboundNotificationUrl: z.string().url().nullable(),
    enforceVerifiedSenders: z.boolean(),
    maxMessagesKept: z.number().int().min(1),
    /** GetAccount's 24-hour quota. */
    max24HourSend: z.number().int().min(0),
    /** Arm a scripted failure for the next `count` calls (null disarms). */
    fault: z
      .object({
        count: z.number().int().min(1).default(1),
        status: z.number().int().min(400).max(599).default(500),
        errorType: z.string().default("InternalFailure"),
        message: z.string().default("Simulated failure"),
        operation: z.enum(["SendEmail", "SendBounce", "any"]).default("SendEmail"),
      })
      .nullable(),
  })
  .partial()
  .strict();

function parseSince(v: unknown): number | null {
  if (typeof v !== "string" || !v) return null;
  const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * How many messages match: exact for no filter or `kind` alone (counted as they came), else among the messages
 * kept (the latest `maxMessagesKept`).
 */
function countMessages(ctx: SimContext, q: Request["query"], kept: () => SimMessage[]): number {
  const { to, from, kind, since } = q;
  if (to === undefined && from === undefined && since === undefined) {
    if (kind === undefined) return ctx.state.messageCount;
    if (kind === "email" || kind === "verification") return ctx.state.messageCountByKind[kind];
  }
  return kept().length;
}

function filterMessages(ctx: SimContext, q: Request["query"]): SimMessage[] {
  const to = typeof q.to === "string" ? q.to.toLowerCase() : null;
  const from = typeof q.from === "string" ? q.from.toLowerCase() : null;
  const kind = typeof q.kind === "string" ? q.kind : null;
  const since = parseSince(q.since);
  if (!to && !from && !kind && since === null) return ctx.state.messages;
  return ctx.state.messages.filter(
    (m) =>
      (!to || m.destination.some((d) => d.toLowerCase() === to)) &&
      (!from || m.from.toLowerCase() === from) &&
      (!kind || m.kind === kind) &&
      (since === null || m.receivedAtMs >= since),
  );
}

function perSecond(messages: SimMessage[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of messages) {
    const key = m.timestamp.slice(0, 19) + "Z";
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** Control API for tests and humans, under /_sim. */
export function controlRoutes(
  ctx: SimContext,
  certPem: string,
  signing: { privateKeyPem: string; topicArn: string; timeoutMs: number },
): Router {
  const r = Router();
  r.use(express.json({ limit: "60mb", type: () => true }));

  r.get("/cert.pem", (_req, res) => {
    res.type("application/x-pem-file").send(certPem);
  });

  // A signed SubscriptionConfirmation to the inbound or provider receiver (spec 4.9: "confirmed automatically"),
  // answered with the receiver's answer and whether it visited the SubscribeURL before answering.
  r.post("/subscribe", async (req, res, next) => {
    try {
      const target = req.query.target;
      if (target !== "inbound" && target !== "provider")
        return void res.status(400).json({ error: "target must be inbound or provider" });
      const sub = await postSubscriptionConfirmation(ctx, target, signing);
      if (!sub)
        return void res.status(409).json({
          error: `no ${target === "inbound" ? "inboundNotificationUrl" : "notificationUrl"} configured`,
        });
      res.json({ ...sub, confirmed: sub.confirmedAt !== null });
    } catch (err) {
      next(err);
    }
  });
  // The SubscribeURL of those confirmations: records the visit, answers as SNS's ConfirmSubscription does.
  r.get("/confirm-subscription", (req, res) => {
    const token = typeof req.query.Token === "string" ? req.query.Token : "";
    const sub = confirmSubscription(ctx, token, req.get("user-agent") ?? null);
    if (!sub)
      return void res
        .status(404)
        .type("text/xml")
        .send(
          "<ErrorResponse><Error><Code>NotFound</Code><Message>Unknown token</Message></Error></ErrorResponse>",
        );
    res
      .type("text/xml")
      .send(
        "<ConfirmSubscriptionResponse><ConfirmSubscriptionResult><SubscriptionArn>" +
          `${sub.subscriptionArn}</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>`,
      );
  });
  r.get("/subscriptions", (_req, res) => {
    res.json({ subscriptions: ctx.state.subscriptions });
  });

  // Target of the UnsubscribeURL in every notification; nothing to undo in a simulator.
  r.get("/unsubscribe", (_req, res) => {
    res.type("text/plain").send("unsubscribed (simulated)");
  });

  r.get("/messages", (req, res) => {
    const all = filterMessages(ctx, req.query);
    const limit = Number(req.query.limit) > 0 ? Number(req.query.limit) : all.length;
    const messages = all.slice(-limit);
    // count: all that matched since the reset (see countMessages); perSecond and messages: of those kept
    res.json({ count: countMessages(ctx, req.query, () => all), perSecond: perSecond(all), messages });
  });
  r.get("/messages/count", (req, res) => {
    res.json({ count: countMessages(ctx, req.query, () => filterMessages(ctx, req.query)) });
  });
  r.get("/messages/:id", (req, res) => {
    const m = ctx.state.messagesById.get(String(req.params.id));
    if (!m) return void res.status(404).json({ error: "message not found" });
    if (req.query.format === "raw") return void res.type("message/rfc822").send(m.raw);
    res.json(m);
  });
  r.delete("/messages", (_req, res) => {
    ctx.state.clearMessages();
    res.status(204).end();
  });

  r.get("/identities", (_req, res) => {
    res.json({ identities: [...ctx.state.identities.values()] });
  });
  for (const [action, outcome] of [
    ["verify", "SUCCESS"],
    ["fail", "FAILED"],
  ] as const) {
    // GET too, so the link in a recorded verification mail can be opened in a browser.
    const handler = (req: Request, res: Response) => {
      const id = settleIdentity(ctx, String(req.params.identity), outcome);
      if (!id)
        return void res.status(404).json({ error: `identity ${String(req.params.identity)} not found` });
      res.json(id);
    };
    r.post(`/identities/:identity/${action}`, handler);
    r.get(`/identities/:identity/${action}`, handler);
  }

  r.post("/inbound", async (req, res, next) => {
    try {
      const parsed = injectInboundBody.safeParse(req.body ?? {});
      if (!parsed.success)
        return void res.status(400).json({ error: "invalid inbound body", issues: parsed.error.issues });
      const result = await injectInbound(ctx, parsed.data);
      const { notification, ...rest } = result;
      const wait = req.query.wait === "1" || req.query.wait === "true";
      if (!wait) return void res.status(202).json(rest);
      const n = await notification;
      res.status(200).json({
        ...rest,
        notification: { status: n.status, attempts: n.attempts, url: n.url, lastError: n.lastError },
      });
    } catch (err) {
      next(err);
    }
  });
  r.get("/inbound", (_req, res) => {
    res.json({ inbound: ctx.state.inbound });
  });
  /** SendBounce calls (SES v1): received messages bounced back to their senders. */
  r.get("/bounces", (_req, res) => {
    res.json({ count: ctx.state.bounces.length, bounces: ctx.state.bounces });
  });

  r.get("/notifications", (req, res) => {
    const messageId = typeof req.query.messageId === "string" ? req.query.messageId : null;
    const list = messageId
      ? ctx.state.notifications.filter((n) => n.sesMessageId === messageId)
      : ctx.state.notifications;
    res.json({ count: list.length, notifications: list });
  });
  r.post("/notifications/flush", async (_req, res) => {
    await ctx.notifier.flush();
    res.json(ctx.state.notificationCounts);
  });

  r.get("/config", (_req, res) => {
    res.json(ctx.state.config);
  });
  r.post("/config", (req, res) => {
    const parsed = configPatch.safeParse(req.body ?? {});
    if (!parsed.success)
      return void res.status(400).json({ error: "invalid config", issues: parsed.error.issues });
    const patch = parsed.data;
    if (patch.maxSendRate === 0) patch.maxSendRate = null;
    Object.assign(ctx.state.config, patch);
    res.json(ctx.state.config);
  });

  r.get("/stats", (_req, res) => {
    const s = ctx.state.sendRate;
    res.json({
      sendCount: s.accepted,
      throttledCount: s.throttled,
      maxPerSecond: s.maxPerSecond,
      perSecond: s.perSecondCounts(),
      messagesStored: ctx.state.messages.length,
      messagesAccepted: ctx.state.messageCount,
      notifications: ctx.state.notificationCounts,
    });
  });
  r.delete("/stats", (_req, res) => {
    ctx.state.sendRate.reset();
    res.status(204).end();
  });
  /** Everything back to a fresh start (messages, identities, inbound, notifications, stats); config is kept. */
  r.post("/reset", async (_req, res) => {
    ctx.state.resetAll();
    res.status(204).end();
  });

  r.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err as { status?: number; message?: string };
    ctx.logger.error({ err }, "control API error");
    res.status(e.status && e.status < 500 ? e.status : 500).json({ error: e.message ?? "internal error" });
  });
  return r;
}
