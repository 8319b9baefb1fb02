/**
 * The chaos run's verdict: every invariant of issue 47, read from the database and the simulator once the system
 * has drained, as rows of a table (name, expected, found, PASS/FAIL).
 */
import { createHash } from "node:crypto";
import type { Pool } from "pg";
import type { FiveXx } from "./client";
import type { FaultWindow } from "./faults";
import type { Received } from "./receiver";
import type { Ledger } from "./traffic";

export interface Row {
  name: string;
  expected: string;
  found: string;
  pass: boolean;
  /** a figure shown for information, never failing */
  info?: boolean;
}

interface SimMessage {
  id: string;
  destination: string[];
  tags: Record<string, string>;
}
interface SimNotification {
  snsMessageId: string;
  sesMessageId: string;
  topic: string;
  eventType: string;
  status: string;
}

export interface Evidence {
  db: Pool;
  projectId: string;
  simulatorUrl: string;
  ledger: Ledger;
  received: Received[];
  fiveXx: FiveXx[];
  windows: FaultWindow[];
  /** activity ids written at set-up (the sends the replies answer): not sends of the run */
  setupActivityIds: string[];
}

const count = <T>(xs: T[], f: (x: T) => boolean) => xs.reduce((n, x) => n + (f(x) ? 1 : 0), 0);

/** Which service answers a route of the traffic (a 5xx while it was killed is the gateway's 502). */
function serviceOf(route: string): string {
  if (route.includes("/webhooks/shop")) return "shop-ingest";
  if (route.includes("/api/inbound")) return "inbound-mail";
  if (route.includes("/t/")) return "notification-ingest";
  return "public-api";
}

export async function checkInvariants(e: Evidence): Promise<Row[]> {
  const { db, ledger } = e;
  const rows: Row[] = [];
  const row = (
    name: string,
    expected: number | string,
    found: number | string,
    pass: boolean,
    info = false,
  ) => rows.push({ name, expected: String(expected), found: String(found), pass, ...(info ? { info } : {}) });

  const sim = (await (await fetch(`${e.simulatorUrl}/_sim/messages`)).json()) as {
    count: number;
    messages: SimMessage[];
  };
  const copies = new Map<string, number>();
  const perRecipient = new Map<string, number>();
  for (const m of sim.messages) {
    const id = m.tags?.activity_id;
    if (id) copies.set(id, (copies.get(id) ?? 0) + 1);
    for (const r of m.destination) perRecipient.set(r, (perRecipient.get(r) ?? 0) + 1);
  }
  if (sim.count !== sim.messages.length)
    row("simulator kept every message (raise maxMessagesKept)", sim.count, sim.messages.length, false);

  // --- sends
  const acts = (
    await db.query<{
      id: string;
      status: string;
      email_message_id: string;
      batch_id: string | null;
      campaign_id: string | null;
      recipient: string;
      provider_message_id: string | null;
    }>(
      `SELECT id, status, email_message_id, batch_id, campaign_id, recipient, provider_message_id FROM activities
        WHERE project_id = $1 AND created_at >= $2 AND NOT (id = ANY($3::uuid[]))`,
      [e.projectId, ledger.startedAt, e.setupActivityIds],
    )
  ).rows;
  // A copy more than one is explained when the reconciler sent it again (a `send_reconciled` event, action
  // resent): the project's documented `on_send_unknown = resend` for a claim still unanswered after the window
  // (SEND_RECONCILE_AFTER_MS) whose first send SES had taken, its Send notification later than the window. Any
  // other second copy is a bug.
  const resent = new Map(
    (
      await db.query<{ id: string; n: number }>(
        `SELECT activity_id AS id, count(*)::int AS n FROM email_events
          WHERE project_id = $1 AND type = 'send_reconciled' AND payload->>'action' = 'resent' GROUP BY 1`,
        [e.projectId],
      )
    ).rows.map((r) => [r.id, r.n]),
  );
  const extra = (id: string) => Math.max(0, (copies.get(id) ?? 0) - 1);
  const explained = (id: string) => extra(id) > 0 && extra(id) <= (resent.get(id) ?? 0);
  /** Sent, and not twice unless the reconciler's documented re-send explains it. */
  const sentOnce = (id: string) => copies.get(id) === 1 || explained(id);
  const byMessage = new Map<string, string[]>();
  for (const a of acts)
    byMessage.set(a.email_message_id, [...(byMessage.get(a.email_message_id) ?? []), a.id]);
  const accepted = ledger.sends.filter((s) => s.accepted);
  const acceptedIds = accepted.flatMap((s) =>
    s.kind === "single" || s.kind === "template"
      ? [...s.results].flatMap((m) => byMessage.get(m) ?? [`missing:${m}`])
      : s.activityIds,
  );
  const once = count(acceptedIds, (id) => copies.get(id) === 1);
  const lost = count(acceptedIds, (id) => !copies.get(id));
  const doubled = count(acceptedIds, (id) => (copies.get(id) ?? 0) > 1 && !explained(id));
  const resentTwice = count(acceptedIds, explained);
  row(
    "accepted sends reached the provider exactly once",
    acceptedIds.length,
    `${once} (lost ${lost}, doubled ${doubled}, reconcile re-sends ${resentTwice})`,
    lost === 0 && doubled === 0 && acceptedIds.length > 0,
  );

  // every activity of the run (a send the client saw fail may still have been accepted): never twice, none lost
  const live = acts.filter((a) => !["cancelled", "suppressed"].includes(a.status));
  const allDoubled = count(live, (a) => (copies.get(a.id) ?? 0) > 1 && !explained(a.id));
  const allResent = count(live, (a) => explained(a.id));
  const allLost = count(live, (a) => !copies.get(a.id));
  row(
    "every activity of the run sent once (none lost, none twice)",
    live.length,
    `${live.length - allDoubled - allResent - allLost} (lost ${allLost}, doubled ${allDoubled}, reconcile re-sends ${allResent})`,
    allDoubled === 0 && allLost === 0,
  );
  row(
    "  of them sent again by the reconciler (on_send_unknown = resend, Send notification later than the window)",
    "-",
    allResent,
    true,
    true,
  );
  const stuck = count(acts, (a) => ["queued", "sending", "scheduled"].includes(a.status));
  row("activities stuck in queued / sending / scheduled", 0, stuck, stuck === 0);
  const failed = acts.filter((a) => a.status === "failed").length;
  row("activities failed (the provider never took them)", 0, failed, failed === 0);

  // --- scheduled sends
  const sched = accepted.filter((s) => s.kind === "scheduled");
  const schedRows = (
    await db.query<{ batch_id: string; status: string }>(
      "SELECT batch_id, status FROM scheduled_sends WHERE project_id = $1 AND batch_id = ANY($2::uuid[])",
      [e.projectId, sched.flatMap((s) => [...s.results])],
    )
  ).rows;
  const schedSent = count(sched, (s) => {
    const r = schedRows.filter((x) => s.results.has(x.batch_id));
    return r.length === 1 && r[0]!.status === "sent" && s.activityIds.every(sentOnce);
  });
  row(
    "scheduled sends went out exactly once (status sent, each email once)",
    sched.length,
    schedSent,
    schedSent === sched.length && sched.length > 0,
  );

  // --- campaign
  if (ledger.campaignId) {
    const c = (
      await db.query<{ status: string; n: number; open: number }>(
        `SELECT c.status, count(r.*)::int AS n,
                count(*) FILTER (WHERE r.status IN ('pending', 'queued'))::int AS open
           FROM campaigns c LEFT JOIN campaign_recipients r ON r.campaign_id = c.id WHERE c.id = $1 GROUP BY c.status`,
        [ledger.campaignId],
      )
    ).rows[0];
    const recips = ledger.campaignRecipients;
    const campActs = acts.filter((a) => a.campaign_id === ledger.campaignId);
    // by address: one email each, or the copies of one activity the reconciler sent again
    const actOf = new Map(campActs.map((a) => [a.recipient, a.id]));
    const onceEach = count(recips, (r) => {
      const id = actOf.get(r);
      return (
        perRecipient.get(r) === 1 ||
        (id !== undefined && explained(id) && perRecipient.get(r) === copies.get(id))
      );
    });
    const campOnce = count(campActs, (a) => sentOnce(a.id));
    row(
      "campaign recipients each sent exactly once",
      `${recips.length} (campaign completed)`,
      `${onceEach} by address, ${campOnce}/${campActs.length} activities (${c?.status}, ledger ${c?.n}, open ${c?.open})`,
      onceEach === recips.length &&
        campOnce === campActs.length &&
        campActs.length === recips.length &&
        c?.status === "completed",
    );
  }

  // --- events, shop webhooks, inbound replies, provider notifications: stored exactly once
  const stored = async (sql: string, keys: string[]) => {
    const r = (await db.query<{ k: string; n: number }>(sql, [e.projectId, keys])).rows;
    const m = new Map(r.map((x) => [x.k, x.n]));
    return {
      once: count(keys, (k) => m.get(k) === 1),
      missing: count(keys, (k) => !m.get(k)),
      twice: count(keys, (k) => (m.get(k) ?? 0) > 1),
    };
  };
  const fmt = (s: { once: number; missing: number; twice: number }) =>
    `${s.once} (missing ${s.missing}, twice ${s.twice})`;
  const ev = ledger.events.filter((x) => x.accepted).map((x) => x.key);
  const evS = await stored(
    "SELECT idempotency_key AS k, count(*)::int AS n FROM lead_events WHERE project_id = $1 AND idempotency_key = ANY($2) GROUP BY 1",
    ev,
  );
  row("accepted events stored exactly once", ev.length, fmt(evS), evS.once === ev.length && ev.length > 0);
  const sh = ledger.shop.filter((x) => x.accepted).map((x) => x.webhookId);
  const shS = await stored(
    "SELECT webhook_id AS k, count(*)::int AS n FROM shop_webhook_events WHERE project_id = $1 AND webhook_id = ANY($2) GROUP BY 1",
    sh,
  );
  const unprocessed = Number(
    (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM shop_webhook_events WHERE project_id = $1 AND webhook_id = ANY($2) AND processed_at IS NULL",
        [e.projectId, sh],
      )
    ).rows[0]!.n,
  );
  row(
    "accepted shop webhooks stored exactly once and processed",
    sh.length,
    `${fmt(shS)}, unprocessed ${unprocessed}`,
    shS.once === sh.length && unprocessed === 0 && sh.length > 0,
  );
  const inb = ledger.inbound.filter((x) => x.accepted).map((x) => x.sesMessageId);
  const inS = await stored(
    "SELECT ses_message_id AS k, count(*)::int AS n FROM inbound_messages WHERE project_id = $1 AND ses_message_id = ANY($2) GROUP BY 1",
    inb,
  );
  row(
    "accepted inbound replies stored exactly once",
    inb.length,
    fmt(inS),
    inS.once === inb.length && inb.length > 0,
  );
  const notes = (
    (await (await fetch(`${e.simulatorUrl}/_sim/notifications`)).json()) as {
      notifications: SimNotification[];
    }
  ).notifications;
  // the notifications of a re-sent activity's other copy match no activity (it keeps one provider id): not expected
  const pmid = new Map(acts.map((a) => [a.id, a.provider_message_id]));
  const otherCopy = new Set(
    sim.messages
      .filter((m) => {
        const id = m.tags?.activity_id;
        return id !== undefined && explained(id) && pmid.get(id) !== m.id;
      })
      .map((m) => m.id),
  );
  const delivered = notes
    .filter((n) => n.topic === "events" && n.eventType === "Delivery" && n.status === "delivered")
    .filter((n) => !otherCopy.has(n.sesMessageId))
    .map((n) => n.snsMessageId);
  const noS = await stored(
    "SELECT provider_event_id AS k, count(*)::int AS n FROM email_events WHERE (project_id = $1 OR project_id IS NULL) AND provider_event_id = ANY($2) GROUP BY 1",
    delivered,
  );
  row(
    "accepted provider notifications (Delivery) stored exactly once",
    delivered.length,
    fmt(noS),
    noS.once === delivered.length && delivered.length > 0,
  );
  const given = count(notes, (n) => n.topic === "events" && n.status === "failed");
  row("  notifications the simulator gave up on (receiver down past its retries)", "-", given, true, true);
  const tr = ledger.tracking.filter((t) => t.accepted);
  const trActs = [...new Set(tr.map((t) => t.activityId))];
  const tracked = (
    await db.query<{ id: string }>(
      "SELECT DISTINCT activity_id AS id FROM email_events WHERE activity_id = ANY($1::uuid[]) AND type IN ('open', 'click')",
      [trActs],
    )
  ).rows.length;
  row(
    // Information, not an invariant of issue 47: notification-ingest answers a hit at once and writes it in a batch
    // a moment later, so a hit answered just before a SIGKILL of notification-ingest is lost with the batch.
    "  tracked activities (answered hits) with an open or click event stored",
    trActs.length,
    tracked,
    true,
    true,
  );

  // --- client webhooks
  const deliveries = (
    await db.query<{ body: string; status: string; is_test: boolean; kind: string; url: string | null }>(
      "SELECT body, status, is_test, kind, url FROM webhook_deliveries WHERE project_id = $1 AND created_at >= $2",
      [e.projectId, ledger.startedAt],
    )
  ).rows.filter((d) => d.url);
  const goodShas = new Set(e.received.filter((r) => r.signatureOk).map((r) => r.sha));
  const sha = (s: string) => createHash("sha256").update(s).digest("hex");
  const deliveredOk = count(deliveries, (d) => goodShas.has(sha(d.body)));
  const notSucceeded = count(deliveries, (d) => d.status !== "succeeded");
  row(
    "client webhooks delivered at least once with a valid signature",
    deliveries.length,
    `${deliveredOk} (not succeeded ${notSucceeded})`,
    deliveredOk === deliveries.length && deliveries.length > 0,
  );
  const wrong = count(
    e.received,
    (r) =>
      !r.signatureOk ||
      r.isTest !== r.path.endsWith("test") ||
      (r.projectId !== null && r.projectId !== e.projectId),
  );
  row(
    "webhooks received under the wrong project or mode, or badly signed",
    0,
    `${wrong} of ${e.received.length}`,
    wrong === 0,
  );

  // --- idempotency
  const keyed = ledger.sends.filter((s) => s.results.size > 0);
  const multi = count(keyed, (s) => s.results.size > 1);
  const replays = ledger.sends.reduce((n, s) => n + s.replayed, 0);
  const actsTo = new Map<string, string[]>();
  for (const a of acts) actsTo.set(a.recipient, [...(actsTo.get(a.recipient) ?? []), a.id]);
  // mailed twice: more emails than its activities, unless the extra copies are the reconciler's re-sends
  const recDup = count(
    ledger.sends.flatMap((s) => s.recipients),
    (r) => {
      const ids = actsTo.get(r) ?? [];
      const allowed = 1 + ids.reduce((n, id) => n + (explained(id) ? extra(id) : 0), 0);
      return (perRecipient.get(r) ?? 0) > allowed;
    },
  );
  row(
    `idempotent retries and replays (${replays} replayed) made no second email`,
    `0 keys with 2 results, 0 recipients mailed twice`,
    `${multi} keys, ${recDup} recipients`,
    multi === 0 && recDup === 0,
  );

  // --- 5xx
  const pgDown = e.windows.filter((w) => w.target === "postgres");
  const inPg = (t: number) => pgDown.some((w) => t >= w.from && t <= w.to + 10_000);
  const killed = (x: FiveXx) =>
    e.windows.some(
      (w) =>
        w.fault.startsWith("SIGKILL") &&
        w.target === serviceOf(x.route) &&
        x.at >= w.from &&
        x.at <= w.to + 5_000,
    );
  const outside = e.fiveXx.filter((x) => !inPg(x.at) && !killed(x));
  const pgNotJson = count(e.fiveXx, (x) => inPg(x.at) && !x.json);
  row(
    "5xx answers outside PostgreSQL-down and killed-service windows",
    0,
    outside.length,
    outside.length === 0,
  );
  row("5xx answers while PostgreSQL was down that were not JSON", 0, pgNotJson, pgNotJson === 0);
  row(
    "  5xx while PostgreSQL was down (JSON, retried by the client)",
    "-",
    count(e.fiveXx, (x) => inPg(x.at)),
    true,
    true,
  );
  row(
    "  gateway 502s while the answering service was killed (retried)",
    "-",
    count(e.fiveXx, (x) => !inPg(x.at) && killed(x)),
    true,
    true,
  );
  for (const x of outside.slice(0, 5))
    console.log(
      `  5xx outside the windows: ${new Date(x.at).toISOString()} ${x.route} ${x.status} ${x.body}`,
    );
  return rows;
}

export function printTable(rows: Row[]): string {
  const w0 = Math.max(...rows.map((r) => r.name.length));
  const w1 = Math.max(8, ...rows.map((r) => r.expected.length));
  const w2 = Math.max(5, ...rows.map((r) => r.found.length));
  const line = (a: string, b: string, c: string, d: string) =>
    `| ${a.padEnd(w0)} | ${b.padEnd(w1)} | ${c.padEnd(w2)} | ${d.padEnd(4)} |`;
  return [
    line("invariant", "expected", "found", ""),
    `|${"-".repeat(w0 + 2)}|${"-".repeat(w1 + 2)}|${"-".repeat(w2 + 2)}|------|`,
    ...rows.map((r) => line(r.name, r.expected, r.found, r.info ? "info" : r.pass ? "PASS" : "FAIL")),
  ].join("\n");
}
