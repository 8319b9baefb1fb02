// Contact imports on public-api's internal port: the upload streamed to S3, the mapping, the preview, options,
// POST /trigger-job (spec 4.8: each answer) and the error report. Real: PostgreSQL, RabbitMQ, Redis, s3rver.
// Processing is the scheduler's (apps/scheduler/test/imports.int.test.ts).
import { once } from "node:events";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import request from "supertest";
import { Queues, type Envelope } from "@emailsvc/contracts";
import { createBroker, type Broker } from "@emailsvc/messaging";
import { buildZip, inlineRow, sheetXml, workbookParts } from "@emailsvc/testing";
import {
  makeProject,
  startHarness,
  startS3,
  testEnv,
  waitFor,
  type Harness,
  type TestProject,
} from "./helpers";

const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
const FIXTURES = path.resolve(__dirname, "../../../packages/imports/test/fixtures");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

let s3: Awaited<ReturnType<typeof startS3>>;
let h: Harness;
let p: TestProject;
let jobs: Broker;
const published: Envelope<{ importJobId: string }>[] = [];

beforeAll(async () => {
  s3 = await startS3("imports");
  h = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint, IMPORTS_BUCKET: "imports" }));
  // What the scheduler would receive: the job.import-requested commands the outbox relay publishes.
  jobs = createBroker({ url: process.env.RABBITMQ_URL!, name: "imports-test-observer" });
  await jobs.ready();
  await jobs.consumeRaw<{ importJobId: string }>(Queues.schedulerJobs, (e) => void published.push(e), {
    prefetch: 50,
  });
});
afterAll(async () => {
  await jobs?.close();
  await h?.close();
  await s3?.close();
});
beforeEach(async () => {
  p = await makeProject(h.deps);
});

const upload = (body: Buffer | string, filename = "contacts.csv", projectId: string = p.projectId) =>
  request(h.internal)
    .post(`/admin/projects/${projectId}/imports`)
    .query({ filename })
    .set(ADMIN)
    .set("Content-Type", "text/csv")
    .send(body);
const admin = {
  show: (jobId: string) =>
    request(h.internal).get(`/admin/projects/${p.projectId}/imports/${jobId}`).set(ADMIN),
  preview: (jobId: string) =>
    request(h.internal).get(`/admin/projects/${p.projectId}/imports/${jobId}/preview`).set(ADMIN),
  options: (jobId: string, body: object) =>
    request(h.internal).patch(`/admin/projects/${p.projectId}/imports/${jobId}`).set(ADMIN).send(body),
  cancel: (jobId: string) =>
    request(h.internal).post(`/admin/projects/${p.projectId}/imports/${jobId}/cancel`).set(ADMIN),
  report: (jobId: string) =>
    request(h.internal)
      .get(`/admin/projects/${p.projectId}/imports/${jobId}/errors.csv`)
      .set(ADMIN)
      .buffer(true)
      .parse((res, cb) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => cb(null, Buffer.concat(parts)));
      }),
};
const trigger = (body: unknown) =>
  request(h.internal)
    .post("/trigger-job")
    .send(body as object);

describe("upload", () => {
  it("streams a spreadsheet's CSV to S3 and answers a pending job with the mapping the header gives", async () => {
    const file = fixture("excel-utf8-bom-crlf.csv");
    const res = await upload(file, "Contacts (Excel).csv");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, status: "pending" });
    const jobId = res.body.jobId as string;
    expect(res.body.job).toMatchObject({
      jobId,
      status: "pending",
      file: {
        name: "Contacts (Excel).csv",
        size_bytes: file.length,
        format: "csv",
        encoding: "utf-8",
        delimiter: ",",
      },
      options: {
        mode: "upsert",
        tags: [],
        segment_id: null,
        honor_subscription: true,
        default_subscription: "unknown",
      },
      progress: { processed: 0, total: null },
    });
    expect(res.body.job.columns).toEqual([
      { header: "Email Address", target: "email" },
      { header: "First Name", target: "first_name" },
      { header: "Last Name", target: "last_name" },
      { header: "Company", target: "attribute:company" },
      { header: "Zip", target: "attribute:zip" },
      { header: "Notes", target: "attribute:notes" },
      { header: "Tags", target: "tags" },
      { header: "Subscription Status", target: "subscription" },
    ]);
    expect((await s3.getObject(`imports/${p.projectId}/${jobId}`))?.equals(file)).toBe(true);
    expect((await admin.show(jobId)).body.job.status).toBe("pending");
    // Nothing is written to leads by an upload.
    const leads = await h.deps.db.pool.query("SELECT 1 FROM leads WHERE project_id = $1", [p.projectId]);
    expect(leads.rowCount).toBe(0);
  });

  it("an upload bigger than one 8 MB part goes up in parts and is stored byte for byte", async () => {
    const rows = Array.from({ length: 260_000 }, (_, i) => `user${i}@example.com,Name ${i}`);
    const file = Buffer.from(`email,name\n${rows.join("\n")}\n`);
    expect(file.length).toBeGreaterThan(8 * 1024 * 1024);
    const res = await upload(file);
    expect(res.status).toBe(201);
    expect(res.body.job.file.size_bytes).toBe(file.length);
    expect((await s3.getObject(`imports/${p.projectId}/${res.body.jobId}`))?.equals(file)).toBe(true);
  });

  it("an XLSX upload is recognised by its content, whatever its name", async () => {
    const ExcelJS = (await import("exceljs")).default;
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Leads");
    ws.addRow(["E-mail", "Vorname"]);
    ws.addRow(["li@example.com", "Li"]);
    const res = await upload(Buffer.from(await wb.xlsx.writeBuffer()), "export.bin");
    expect(res.status).toBe(201);
    expect(res.body.job.file).toMatchObject({ format: "xlsx", sheet: "Leads" });
    expect(res.body.job.columns).toEqual([
      { header: "E-mail", target: "email" },
      { header: "Vorname", target: "first_name" },
    ]);
  });

  it.each([
    [
      "a binary file named .csv",
      Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)),
      "not a CSV or XLSX file: it holds binary data",
    ],
    [
      "a file of only headers",
      Buffer.from("Email,First Name\r\n"),
      "the file has a header but no rows below it",
    ],
    ["an empty file", Buffer.alloc(0), "the file is empty"],
    [
      "a file without an email column",
      Buffer.from("name,city\nAda,London\n"),
      'no column holds email addresses: name one in the mapping option (e.g. {"Contact": "email"})',
    ],
  ])("%s: 400 naming the job, which is failed with the reason", async (_what, body, reason) => {
    const res = await upload(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: reason, status: "failed" });
    const job = (await admin.show(res.body.jobId)).body.job;
    expect(job).toMatchObject({ status: "failed", failure_reason: reason });
  });

  it.each([
    [
      "an XLSX ZIP bomb",
      () =>
        buildZip(
          workbookParts(
            sheetXml(
              inlineRow(1, ["email"]) +
                '<row><c t="inlineStr"><is><t>a@b.co</t></is></c></row>'.repeat(800_000),
            ),
          ),
        ),
      /^the XLSX file inflates xl\/worksheets\/sheet1\.xml beyond \d+ MB \(0 MB compressed\): a ZIP bomb\?$/,
    ],
    [
      "1,000,000 columns in the header",
      () => Buffer.from("email" + ",".repeat(999_999) + "\na@example.com\n"),
      /^the header has 1,000,000 columns; at most 1,000$/,
    ],
    [
      "a 50 MB cell",
      () =>
        Buffer.concat([
          Buffer.from("email,notes\na@example.com,"),
          Buffer.alloc(50 * 1024 * 1024, "x"),
          Buffer.from("\n"),
        ]),
      /^line 2: a row is larger than 1 MB$/,
    ],
  ])("%s: 400 with the reason, the job failed, the service still answering", async (_what, make, reason) => {
    const res = await upload(make());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(reason);
    expect((await admin.show(res.body.jobId)).body.job).toMatchObject({
      status: "failed",
      failure_reason: res.body.error,
    });
    expect((await upload("email\nok@example.com\n")).status).toBe(201);
  });

  it("finds the email column by its content when no header names it", async () => {
    const res = await upload("Login,Name\nada@example.com,Ada\ngrace@example.com,Grace\n");
    expect(res.status).toBe(201);
    expect(res.body.job.columns[0]).toEqual({ header: "Login", target: "email" });
  });

  it("404 for a project that does not exist", async () => {
    const res = await upload("email\na@b.co\n", "x.csv", "00000000-0000-4000-8000-000000000000");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: "Project not found" });
  });

  it("needs the admin token", async () => {
    const res = await request(h.internal)
      .post(`/admin/projects/${p.projectId}/imports`)
      .send("email\na@b.co\n");
    expect(res.status).toBe(401);
  });
});

describe("the upload cap", () => {
  let small: Harness;
  beforeAll(async () => {
    small = await startHarness(
      testEnv({ S3_ENDPOINT: s3.endpoint, IMPORTS_BUCKET: "imports", IMPORT_MAX_FILE_BYTES: "1000" }),
    );
  });
  afterAll(() => small?.close());

  it("413 before reading a body whose Content-Length is over the cap; the job is failed", async () => {
    const res = await request(small.internal)
      .post(`/admin/projects/${p.projectId}/imports`)
      .set(ADMIN)
      .send(Buffer.alloc(5000, "a"));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({
      success: false,
      error: "the file is larger than the 0 MB cap",
      status: "failed",
    });
    const job = await small.deps.db.pool.query(
      "SELECT status, failure_reason FROM import_jobs WHERE id = $1",
      [res.body.jobId],
    );
    expect(job.rows[0]).toEqual({ status: "failed", failure_reason: "the file is larger than the 0 MB cap" });
  });

  it("413 when a chunked body without a length passes the cap while streaming; nothing stays stored", async () => {
    const server = small.internal.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const body = Readable.from(
        (function* () {
          for (let i = 0; i < 10; i++) yield Buffer.alloc(500, "b");
        })(),
      );
      const res = await fetch(
        `http://127.0.0.1:${port}/admin/projects/${p.projectId}/imports?filename=big.csv`,
        {
          method: "POST",
          headers: { ...ADMIN, "Content-Type": "text/csv" },
          body: Readable.toWeb(body) as ReadableStream,
          duplex: "half",
        } as RequestInit,
      );
      expect(res.status).toBe(413);
      expect(res.headers.get("content-length")).not.toBeNull(); // not chunked: answered, body never read whole
      const json = (await res.json()) as { jobId: string; error: string };
      expect(json.error).toBe("the file is larger than the 0 MB cap");
      expect(await s3.getObject(`imports/${p.projectId}/${json.jobId}`)).toBeNull();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe("preview and options", () => {
  it("shows the first 20 rows as they would be imported: leads, actions, reasons", async () => {
    await request(h.app)
      .post("/v1/leads")
      .set({ Authorization: `Bearer ${p.liveKey}` })
      .send({ email: "grace.hopper@example.com", first_name: "G" });
    const jobId = (await upload(fixture("excel-utf8-bom-crlf.csv"))).body.jobId;
    const res = await admin.preview(jobId);
    expect(res.status).toBe(200);
    const rows = res.body.rows as {
      line: number;
      action: string;
      reason?: string;
      lead?: Record<string, unknown>;
    }[];
    expect(rows.map((r) => [r.line, r.action])).toEqual([
      [2, "create"],
      [4, "update"],
      [5, "create"],
      [6, "invalid"],
      [7, "duplicate"],
      [9, "create"],
    ]);
    expect(rows[0]!.lead).toEqual({
      email: "ada@example.com",
      first_name: "Ada",
      last_name: "Lovelace",
      phone: null,
      tags: ["vip", "speaker"],
      attributes: {
        company: "Analytical Engines, Ltd.",
        zip: "02134",
        notes: "Met at the conference,\r\nwants the newsletter",
      },
      subscription: "subscribed",
    });
    expect(rows[2]!.lead!.subscription).toBe("unsubscribed");
    expect(rows[3]!.reason).toBe("not a valid email address: not-an-email");
    expect(rows[4]!.reason).toBe("duplicate of line 2");
  });

  it("changes mode, tags, segment and mapping while pending; the preview follows", async () => {
    const seg = await request(h.internal)
      .post(`/admin/projects/${p.projectId}/segments`)
      .set(ADMIN)
      .send({ name: "imported", type: "static" });
    const jobId = (await upload(fixture("excel-utf8-bom-crlf.csv"))).body.jobId;
    const res = await admin.options(jobId, {
      mode: "insert-only",
      tags: ["import-2024"],
      segment_id: seg.body.segment.id,
      honor_subscription: false,
      default_subscription: "subscribed",
      mapping: { Notes: "ignore", Company: "attribute:employer" },
    });
    expect(res.status).toBe(200);
    expect(res.body.job.options).toEqual({
      mode: "insert_only",
      tags: ["import-2024"],
      segment_id: seg.body.segment.id,
      honor_subscription: false,
      default_subscription: "subscribed",
    });
    expect(res.body.job.columns).toContainEqual({ header: "Company", target: "attribute:employer" });
    const preview = (await admin.preview(jobId)).body.rows;
    expect(preview[0].lead).toMatchObject({
      tags: ["import-2024", "vip", "speaker"],
      attributes: { employer: "Analytical Engines, Ltd.", zip: "02134" },
      subscription: "subscribed", // the column is ignored; a new lead gets the default
    });
  });

  it("refuses a dynamic segment, an unknown column, a mapping without email, and changes after the trigger", async () => {
    const dyn = await request(h.internal)
      .post(`/admin/projects/${p.projectId}/segments`)
      .set(ADMIN)
      .send({ name: "dyn", type: "dynamic", filter: { tag: "x" } });
    const jobId = (await upload(fixture("excel-utf8-bom-crlf.csv"))).body.jobId;
    expect((await admin.options(jobId, { segment_id: dyn.body.segment.id })).body.error).toBe(
      "segment_id: only a static segment can be joined by an import",
    );
    expect((await admin.options(jobId, { mapping: { Nope: "email" } })).body).toEqual({
      success: false,
      error: "mapping: the mapping names a column the file does not have: Nope",
    });
    expect((await admin.options(jobId, { mapping: { "Email Address": "ignore" } })).status).toBe(400);
    expect((await admin.options(jobId, { mode: "sometimes" })).body.error).toBe(
      "mode: must be one of upsert, insert_only, update_only",
    );
    await trigger({ jobId });
    const late = await admin.options(jobId, { mode: "update_only" });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("The import job is processing; options change only while it is pending");
  });
});

describe("POST /trigger-job (spec 4.8)", () => {
  it("200: starts a pending job and publishes its job.import-requested through the outbox", async () => {
    const jobId = (await upload("email\na@example.com\n")).body.jobId;
    const res = await trigger({ jobId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Import job started", jobId, status: "processing" });
    const msg = await waitFor(
      () => published.find((e) => e.payload.importJobId === jobId),
      5000,
      "the command",
    );
    expect(msg).toMatchObject({ type: "job.import-requested", projectId: p.projectId });
    expect((await admin.show(jobId)).body.job).toMatchObject({ status: "processing" });
  });

  it("200 again changes nothing: the answer says the job is already processing, no second command", async () => {
    const jobId = (await upload("email\na@example.com\n")).body.jobId;
    await trigger({ jobId });
    await waitFor(() => published.find((e) => e.payload.importJobId === jobId), 5000, "the command");
    const again = await trigger({ jobId });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      success: true,
      message: "Import job is already processing; nothing was changed",
      jobId,
      status: "processing",
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(published.filter((e) => e.payload.importJobId === jobId)).toHaveLength(1);
  });

  it("200 for a finished job, with its state: completed, failed or cancelled jobs do not run again", async () => {
    const failed = (await upload(Buffer.from("email\r\n"))).body.jobId;
    expect((await trigger({ jobId: failed })).body).toEqual({
      success: true,
      message: "Import job is already failed; nothing was changed",
      jobId: failed,
      status: "failed",
    });
    const cancelled = (await upload("email\na@example.com\n")).body.jobId;
    expect((await admin.cancel(cancelled)).body.job.status).toBe("cancelled");
    expect((await trigger({ jobId: cancelled })).body.status).toBe("cancelled");
  });

  it.each([
    [{}, "jobId is required"],
    [{ jobId: "" }, "jobId is required"],
    [{ jobId: null }, "jobId is required"],
    [{ jobId: "job-1" }, "jobId must be a UUID"],
    [{ jobId: 42 }, "jobId must be a UUID"],
  ])("400 for a missing or malformed jobId: %j", async (body, error) => {
    const res = await trigger(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error });
  });

  it("400 for a body that is not JSON", async () => {
    const res = await request(h.internal)
      .post("/trigger-job")
      .set("Content-Type", "text/plain")
      .send("jobId=x");
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it("404 for a job that does not exist", async () => {
    const res = await trigger({ jobId: "6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: "Import job not found" });
  });

  it("500 when the database fails", async () => {
    const broken = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint }));
    await broken.deps.db.close();
    const res = await request(broken.internal)
      .post("/trigger-job")
      .send({ jobId: "6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: "Internal server error" });
    await broken.deps.outbox.stop();
    await broken.deps.closeExtras();
    await broken.deps.broker.close();
  });

  it("needs no key (internal port) and is not served on the public port", async () => {
    const res = await request(h.app)
      .post("/trigger-job")
      .send({ jobId: "6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f" });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("Not found");
  });
});

describe("the error report", () => {
  it("lists rejected rows with line and reason, cells starting with = + - @ escaped, as UTF-8 CSV for Excel", async () => {
    const jobId = (await upload(fixture("excel-utf8-bom-crlf.csv"))).body.jobId;
    await h.deps.db.pool.query(
      `INSERT INTO import_rejected_rows (job_id, project_id, line, reason, cells) VALUES
        ($1, $2, 9, 'duplicate of line 2', ARRAY['=HYPERLINK("http://evil")', '+1', '-2', '@SUM(A1)', 'plain, "quoted"']),
        ($1, $2, 6, 'not a valid email address: not-an-email', ARRAY['not-an-email', 'Bad'])`,
      [jobId, p.projectId],
    );
    const res = await admin.report(jobId);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe('attachment; filename="contacts-errors.csv"');
    const text = (res.body as Buffer).toString("utf8");
    expect(text.startsWith("\ufeff")).toBe(true);
    expect(text.slice(1).split("\r\n")).toEqual([
      "line,reason,Email Address,First Name,Last Name,Company,Zip,Notes,Tags,Subscription Status",
      "6,not a valid email address: not-an-email,not-an-email,Bad",
      `9,duplicate of line 2,"'=HYPERLINK(""http://evil"")",'+1,'-2,'@SUM(A1),"plain, ""quoted"""`,
      "",
    ]);
  });

  it("404 for another project's job", async () => {
    const jobId = (await upload("email\na@example.com\n")).body.jobId;
    const other = await makeProject(h.deps);
    const res = await request(h.internal)
      .get(`/admin/projects/${other.projectId}/imports/${jobId}/errors.csv`)
      .set(ADMIN);
    expect(res.status).toBe(404);
  });
});

it("the admin API's OpenAPI document lists the import routes", async () => {
  const res = await request(h.internal).get("/admin/openapi.json").set(ADMIN);
  expect(Object.keys(res.body.paths)).toEqual(
    expect.arrayContaining([
      "/admin/projects/{projectId}/imports",
      "/admin/projects/{projectId}/imports/{jobId}",
      "/admin/projects/{projectId}/imports/{jobId}/preview",
      "/admin/projects/{projectId}/imports/{jobId}/errors.csv",
      "/admin/projects/{projectId}/imports/{jobId}/cancel",
    ]),
  );
});

describe("list and cancel", () => {
  it("lists a project's jobs newest first, by status", async () => {
    const a = (await upload("email\na@example.com\n", "a.csv")).body.jobId;
    const b = (await upload("email\nb@example.com\n", "b.csv")).body.jobId;
    await admin.cancel(a);
    const all = await request(h.internal).get(`/admin/projects/${p.projectId}/imports`).set(ADMIN);
    expect(all.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([b, a]);
    const cancelled = await request(h.internal)
      .get(`/admin/projects/${p.projectId}/imports`)
      .query({ status: "cancelled" })
      .set(ADMIN);
    expect(cancelled.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([a]);
  });

  it("cancel: 409 once the job has ended", async () => {
    const jobId = (await upload("email\na@example.com\n")).body.jobId;
    expect((await admin.cancel(jobId)).status).toBe(200);
    const again = await admin.cancel(jobId);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      success: false,
      error: "The import job is already cancelled",
      jobId,
      status: "cancelled",
    });
  });
});
