// The SDK against the real public-api: its main.ts as a child process on this package's own PostgreSQL database
// and RabbitMQ vhost (the jest preset's), Redis. What is real: every route, the key check, idempotency, the
// database rows. Nothing is faked; a project, its sender and a segment are made through the admin API, and one
// test puts a proxy in front of the service that drops a connection after the service answered.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Db } from "@emailsvc/db";
import { type Service, startService } from "./service.js";
import {
  EmailService,
  NotFoundError,
  SenderNotVerifiedError,
  UnauthorizedError,
  ValidationError,
} from "../src/index.js";

jest.setTimeout(120_000);

let service: Service;
let apiUrl: string;
let db: Db;
let project: Service["project"];
const admin = (method: string, route: string, body?: unknown) => service.admin(method, route, body);

beforeAll(async () => {
  service = await startService();
  ({ apiUrl, db, project } = service);
});

afterAll(async () => {
  await service?.stop();
});

const sdk = (key = project.testKey, baseUrl = apiUrl) =>
  new EmailService({ apiKey: key, baseUrl, initialDelayMs: 50, maxDelayMs: 200 });

async function activities(subject: string): Promise<{ is_test: boolean }[]> {
  const { rows } = await db.pool.query<{ is_test: boolean }>(
    `SELECT a.is_test FROM activities a JOIN email_messages m ON m.id = a.email_message_id
      WHERE a.project_id = $1 AND m.subject = $2`,
    [project.id, subject],
  );
  return rows;
}

describe("emails", () => {
  it("sends with a test key: the answer names the email and project, and one test activity is stored", async () => {
    const subject = `welcome ${Date.now()}`;
    const answer = await sdk().emails.send({
      recipient_email: "ada@example.com",
      sender_email: project.sender,
      subject,
      html_body: "<p>Hello {{name}}</p>",
      data: { name: "Ada" },
    });
    if (!("email_id" in answer)) throw new Error(`not accepted: ${JSON.stringify(answer)}`);
    expect(answer.project_id).toBe(project.id);
    expect(answer.email_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await activities(subject)).toEqual([{ is_test: true }]);
  });

  it("a dry run renders without sending", async () => {
    const answer = await sdk().emails.send({
      recipient_email: ["a@example.com", "b@example.com"],
      sender_email: project.sender,
      subject: "Hi {{name}}",
      html_body: "<p>x</p>",
      data: { name: "Bo" },
      dry_run: true,
    });
    expect(answer).toMatchObject({ dry_run: true, test_mode: true, would_send: { subject: "Hi Bo" } });
  });

  it("retries a send whose answer was lost on a dropped connection, and the recipient gets it once", async () => {
    // A proxy that forwards the first request to public-api, lets it answer, then drops the client's connection
    // instead of relaying the answer; later requests pass through.
    let seen = 0;
    const keys: string[] = [];
    const proxy = http.createServer((req, res) => {
      const n = ++seen;
      keys.push(String(req.headers["idempotency-key"]));
      const upstream = http.request(
        `${apiUrl}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          if (n === 1) {
            answer.resume();
            answer.on("end", () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    proxy.listen(0, "127.0.0.1");
    await once(proxy, "listening");
    try {
      const subject = `dropped ${Date.now()}`;
      const retried: number[] = [];
      const client = new EmailService({
        apiKey: project.testKey,
        baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        initialDelayMs: 50,
        onRetry: (i) => retried.push(i.attempt),
      });
      const answer = await client.emails.send({
        recipient_email: "once@example.com",
        sender_email: project.sender,
        subject,
        html_body: "<p>once</p>",
      });
      expect(seen).toBe(2);
      expect(retried).toEqual([1]);
      expect(keys[1]).toBe(keys[0]);
      expect(answer).toHaveProperty("email_id");
      expect(await activities(subject)).toHaveLength(1);
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  it("sends a batch; the same Idempotency-Key again is answered with the first batch, not a second one", async () => {
    const body = {
      sender: project.sender,
      subject: "Batch {{n}}",
      html: "<p>{{n}}</p>",
      email_type: "transactional",
      recipients: [
        { email: "b1@example.com", data: { n: 1 } },
        { email: "b2@example.com", data: { n: 2 } },
      ],
    };
    const idempotencyKey = `batch-${Date.now()}`;
    const first = await sdk().emails.sendBatch(body, { idempotencyKey });
    expect(first).toMatchObject({ total: 2, queued: 2, scheduled: false });
    expect(first.activities.map((a) => a.email)).toEqual(["b1@example.com", "b2@example.com"]);
    const again = await sdk().emails.sendBatch(body, { idempotencyKey });
    expect(again.batch_id).toBe(first.batch_id);
    const { rows } = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM activities WHERE batch_id = $1",
      [first.batch_id],
    );
    expect(rows[0]!.n).toBe(2);
  });

  it("maps the service's errors: unverified sender, missing field, bad key", async () => {
    const unverified = sdk()
      .emails.send({
        recipient_email: "a@example.com",
        sender_email: "who@unverified.example",
        html_body: "x",
      })
      .catch((e: unknown) => e);
    const e1 = await unverified;
    expect(e1).toBeInstanceOf(SenderNotVerifiedError);
    expect(e1).toMatchObject({ status: 403, code: "SENDER_NOT_VERIFIED" });

    const e2 = await sdk()
      .emails.send({ recipient_email: "a@example.com", sender_email: project.sender, html_body: "" })
      .catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(ValidationError);
    expect((e2 as ValidationError).fields).toContain("html_body");

    const e3 = await sdk("sk_test_not-a-real-key")
      .events.list()
      .catch((e: unknown) => e);
    expect(e3).toBeInstanceOf(UnauthorizedError);
    expect(e3).toMatchObject({ status: 401, message: "Unauthorized: Invalid or missing API key" });
  });
});

describe("events", () => {
  it("tracks an event (creating its lead), lists it, and counts a retried key once", async () => {
    const email = `ev-${Date.now()}@example.com`;
    const tracked = await sdk().events.track({ email, event: "signed_up", properties: { plan: "pro" } });
    expect(tracked).toMatchObject({ success: true, created_lead: true });

    const again = await sdk().events.track({ email, event: "paid" }, { idempotencyKey: `paid-${email}` });
    const replay = await sdk().events.track({ email, event: "paid" }, { idempotencyKey: `paid-${email}` });
    expect(replay).toMatchObject({ event_id: again.event_id, duplicate: true });

    const bulk = await sdk().events.trackBulk([
      { email, event: "viewed", properties: { page: 1 } },
      { email, event: "viewed", properties: { page: 2 } },
    ]);
    expect(bulk).toMatchObject({ total: 2, created_leads: 0 });

    const page = await sdk().events.list({ email, per_page: 10 });
    expect(page.pagination.total).toBe(4);
    expect(page.data.map((e) => e.event).sort()).toEqual(["paid", "signed_up", "viewed", "viewed"]);
    expect(page.data.find((e) => e.event === "signed_up")).toMatchObject({
      id: tracked.event_id,
      recipient_id: tracked.recipient_id,
      properties: { plan: "pro" },
    });
  });
});

describe("leads", () => {
  it("creates, tags, sets attributes, puts in a segment, updates and deletes a lead", async () => {
    const mail = sdk();
    const email = `lead-${Date.now()}@example.com`;
    const created = await mail.leads.upsert({ email, first_name: "Ada", tags: ["new"] });
    expect(created).toMatchObject({ created: true, lead: { email, first_name: "Ada", tags: ["new"] } });
    const id = created.lead.id;

    expect(await mail.leads.tags.add(email, ["vip"])).toMatchObject({
      tags: expect.arrayContaining(["new", "vip"]),
    });
    expect((await mail.leads.tags.remove(email, ["new"])).tags).toEqual(["vip"]);
    expect((await mail.leads.tags.list(email)).tags).toEqual(["vip"]);

    await mail.leads.attributes.set(email, { plan: "pro", seats: 3 });
    expect((await mail.leads.attributes.set(email, { seats: null })).attributes).toEqual({ plan: "pro" });
    expect((await mail.leads.attributes.get(email)).attributes).toEqual({ plan: "pro" });

    const { segment } = await admin("POST", `/projects/${project.id}/segments`, {
      name: `sdk ${Date.now()}`,
      type: "static",
    });
    expect((await mail.leads.addToSegments(id, [segment.id])).segments).toEqual([
      expect.objectContaining({ id: segment.id, type: "static" }),
    ]);
    expect((await mail.leads.get(id)).segments.map((s) => s.id)).toEqual([segment.id]);
    expect((await mail.leads.list({ segment: segment.id })).data.map((l) => l.id)).toEqual([id]);
    expect((await mail.leads.removeFromSegment(id, segment.id)).segments).toEqual([]);

    const updated = await mail.leads.update(id, { last_name: "Lovelace" });
    expect(updated).toMatchObject({ id, last_name: "Lovelace" });

    const bulk = await mail.leads.upsertMany([{ email }, { email: "not-an-email" }]);
    expect(bulk).toMatchObject({ total: 2, updated: 1, invalid: 1 });
    expect(bulk.results[1]).toMatchObject({ index: 1, status: "invalid" });

    expect(await mail.leads.delete(id)).toMatchObject({ id, deleted: true });
    const gone = await mail.leads.get(id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(NotFoundError);
  });
});

describe("threads", () => {
  it("lists the project's threads (none yet) and answers 404 for an unknown one", async () => {
    const page = await sdk().threads.list();
    expect(page).toMatchObject({ success: true, data: [] });
    const e = await sdk()
      .threads.get("00000000-0000-4000-8000-000000000000")
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(NotFoundError);
  });
});
