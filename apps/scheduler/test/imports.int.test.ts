// Import processing in the scheduler. Real: PostgreSQL (the package's migrated database), s3rver; the jobs are
// staged as public-api's upload leaves them (imports-harness.ts). Killing the real service is in
// imports-resume.int.test.ts.
import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import {
  contactsCsv,
  jobRow,
  leadsOf,
  newProject,
  rejected,
  runJob,
  stageJob,
  startImportHarness,
  type ImportHarness,
} from "./imports-harness";

jest.setTimeout(120_000);
const FIXTURES = path.resolve(__dirname, "../../../packages/imports/test/fixtures");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

let h: ImportHarness;
beforeAll(async () => {
  h = await startImportHarness();
});
afterAll(() => h?.close());

const counts = (j: Record<string, unknown>) => ({
  status: j.status,
  total: j.total_rows,
  processed: j.processed_rows,
  created: j.created_count,
  updated: j.updated_count,
  skipped: j.skipped_count,
  duplicate: j.duplicate_count,
  invalid: j.invalid_count,
  suppressed: j.suppressed_count,
});

describe("a spreadsheet export (BOM, CRLF, quoted commas and newlines)", () => {
  it("imports valid rows as leads; the rest are in the report with line and reason", async () => {
    const projectId = await newProject(h.db);
    const job = await stageJob(h, projectId, fixture("excel-utf8-bom-crlf.csv"));
    expect(await runJob(h, job.id)).toBe("completed");
    expect(counts(await jobRow(h.db, job.id))).toEqual({
      status: "completed",
      total: 6,
      processed: 6,
      created: 4,
      updated: 0,
      skipped: 0,
      duplicate: 1,
      invalid: 1,
      suppressed: 0,
    });
    const leads = await leadsOf(h.db, projectId);
    expect(leads.map((l) => l.email)).toEqual([
      "ada@example.com",
      "alan@example.org",
      "Grace.Hopper@Example.COM",
      "linus@example.net",
    ]);
    expect(leads[0]).toMatchObject({
      email_normalized: "ada@example.com",
      first_name: "Ada",
      last_name: "Lovelace",
      attributes: {
        company: "Analytical Engines, Ltd.",
        zip: "02134",
        notes: "Met at the conference,\r\nwants the newsletter",
      },
      tags: ["vip", "speaker"],
      subscription: "subscribed",
      subscription_source: "import",
      source: "import",
    });
    expect(leads[1]).toMatchObject({
      subscription: "unsubscribed",
      attributes: { zip: "00501", notes: 'He said "hello"' },
    });
    expect(leads[2]).toMatchObject({ email_normalized: "grace.hopper@example.com", subscription: "unknown" });
    expect(leads[3]).toMatchObject({
      subscription: "subscribed",
      attributes: { company: '=HYPERLINK("http://x")' },
    });
    expect(await rejected(h.db, job.id)).toEqual([
      {
        line: 6,
        reason: "not a valid email address: not-an-email",
        cells: ["not-an-email", "Bad", "Row", "", "", "", "", ""],
      },
      {
        line: 7,
        reason: "duplicate of line 2",
        cells: ["ada@example.com", "Ada", "Again", "", "", "", "", ""],
      },
    ]);
  });

  it("European Excel (semicolons, Windows-1252) and Excel's Unicode Text (UTF-16, tabs)", async () => {
    const projectId = await newProject(h.db);
    const a = await stageJob(h, projectId, fixture("excel-semicolon-windows1252.csv"));
    const b = await stageJob(h, projectId, fixture("excel-unicode-text.txt"));
    expect(await runJob(h, a.id)).toBe("completed");
    expect(await runJob(h, b.id)).toBe("completed");
    const leads = await leadsOf(h.db, projectId);
    expect(leads.map((l) => [l.email, l.first_name, l.last_name])).toEqual([
      ["francois@example.fr", "François", "Lefèvre"],
      ["jurgen@example.de", "Jürgen", "Müller"],
      ["li@example.cn", "李", "小龍"],
      ["zoe@example.com", "Zoë", "Ångström"],
    ]);
    expect(leads[1]!.attributes).toEqual({ stadt: "Köln" });
    expect(leads[3]!.attributes).toEqual({ city: "Malmö" });
  });
});

describe("modes", () => {
  const existing = "email,first_name,last_name,plan,tags\nold@example.com,Old,Person,free,keep\n";
  const file = "email,first_name,plan,tags\nold@example.com,Renamed,pro,new\nfresh@example.com,Fresh,pro,\n";

  async function withExisting(mode?: "upsert" | "insert_only" | "update_only") {
    const projectId = await newProject(h.db);
    await runJob(h, (await stageJob(h, projectId, Buffer.from(existing))).id);
    const job = await stageJob(h, projectId, Buffer.from(file), mode ? { options: { mode } } : {});
    expect(await runJob(h, job.id)).toBe("completed");
    return { projectId, job: await jobRow(h.db, job.id), leads: await leadsOf(h.db, projectId) };
  }

  it("upsert (default): creates new emails, updates known ones (empty cells keep values, tags add up)", async () => {
    const { job, leads } = await withExisting();
    expect(counts(job)).toMatchObject({ created: 1, updated: 1, skipped: 0 });
    expect(leads.map((l) => [l.email, l.first_name, l.last_name, l.attributes, l.tags])).toEqual([
      ["fresh@example.com", "Fresh", null, { plan: "pro" }, []],
      ["old@example.com", "Renamed", "Person", { plan: "pro" }, ["keep", "new"]],
    ]);
  });

  it("insert_only: known leads are skipped and left untouched", async () => {
    const { job, leads } = await withExisting("insert_only");
    expect(counts(job)).toMatchObject({ created: 1, updated: 0, skipped: 1 });
    expect(leads.find((l) => l.email === "old@example.com")).toMatchObject({
      first_name: "Old",
      attributes: { plan: "free" },
      tags: ["keep"],
    });
  });

  it("update_only: unknown emails are skipped, known ones updated", async () => {
    const { job, leads } = await withExisting("update_only");
    expect(counts(job)).toMatchObject({ created: 0, updated: 1, skipped: 1 });
    expect(leads.map((l) => l.email)).toEqual(["old@example.com"]);
    expect(leads[0]).toMatchObject({ first_name: "Renamed", attributes: { plan: "pro" } });
  });
});

describe("consent", () => {
  it("imports unsubscribed people as unsubscribed, never re-subscribes, and honours the suppression list", async () => {
    const projectId = await newProject(h.db);
    await runJob(
      h,
      (
        await stageJob(
          h,
          projectId,
          Buffer.from("email,status\nwas-sub@example.com,subscribed\nwas-unsub@example.com,unsubscribed\n"),
        )
      ).id,
    );
    await h.db.pool.query(
      "INSERT INTO suppressions (id, project_id, email, reason) VALUES (gen_random_uuid(), $1, 'complained@example.com', 'complaint'), (gen_random_uuid(), $1, 'bounced@example.com', 'bounce')",
      [projectId],
    );
    const job = await stageJob(
      h,
      projectId,
      Buffer.from(
        [
          "Email,Email Opt Out,Accepts Email Marketing",
          "new-unsub@example.com,yes,",
          "new-no@example.com,,no",
          "was-sub@example.com,true,",
          "was-unsub@example.com,,yes",
          "complained@example.com,,yes",
          "bounced@example.com,,yes",
          "new-yes@example.com,no,yes",
          "weird@example.com,,maybe",
        ].join("\n"),
      ),
      { options: { default_subscription: "subscribed" } },
    );
    expect(await runJob(h, job.id)).toBe("completed");
    const sub = Object.fromEntries((await leadsOf(h.db, projectId)).map((l) => [l.email, l.subscription]));
    expect(sub).toEqual({
      "new-unsub@example.com": "unsubscribed",
      "new-no@example.com": "unsubscribed",
      "was-sub@example.com": "unsubscribed",
      "was-unsub@example.com": "unsubscribed", // a file's "yes" does not undo an unsubscribe
      "complained@example.com": "unsubscribed", // on the suppression list for a complaint
      "bounced@example.com": "subscribed", // suppressed for sending, consent as stated
      "new-yes@example.com": "subscribed",
    });
    expect(counts(await jobRow(h.db, job.id))).toMatchObject({
      created: 5,
      updated: 2,
      suppressed: 2,
      invalid: 1,
    });
    expect((await rejected(h.db, job.id))[0]!.reason).toBe(
      "subscription maybe is not one of subscribed, unsubscribed, unknown, yes, no",
    );
  });

  it("honor_subscription false ignores the column; new leads get the default", async () => {
    const projectId = await newProject(h.db);
    const job = await stageJob(h, projectId, Buffer.from("email,subscribed\na@example.com,no\n"), {
      options: { honor_subscription: false, default_subscription: "subscribed" },
    });
    await runJob(h, job.id);
    expect((await leadsOf(h.db, projectId))[0]!.subscription).toBe("subscribed");
  });
});

describe("tags and segment", () => {
  it("adds the job's tags and joins its static segment", async () => {
    const projectId = await newProject(h.db);
    const seg = await h.db.pool.query<{ id: string }>(
      "INSERT INTO segments (id, project_id, name, type) VALUES (gen_random_uuid(), $1, 'imported', 'static') RETURNING id",
      [projectId],
    );
    const segmentId = seg.rows[0]!.id;
    const job = await stageJob(
      h,
      projectId,
      Buffer.from("email,labels\na@example.com,x|y\nb@example.com,\n"),
      {
        options: { tags: ["2024-fair"], segment_id: segmentId },
      },
    );
    await runJob(h, job.id);
    const leads = await leadsOf(h.db, projectId);
    expect(leads.map((l) => l.tags)).toEqual([["2024-fair", "x", "y"], ["2024-fair"]]);
    const members = await h.db.pool.query("SELECT 1 FROM segment_members WHERE segment_id = $1", [segmentId]);
    expect(members.rowCount).toBe(2);
  });

  it("a merge past the lead limits is refused by the database and reported with the row's cells", async () => {
    const projectId = await newProject(h.db);
    const many = Array.from({ length: 100 }, (_, i) => `t${i}`).join(";");
    await runJob(h, (await stageJob(h, projectId, Buffer.from(`email,tags\nfull@example.com,${many}\n`))).id);
    const job = await stageJob(
      h,
      projectId,
      Buffer.from("email,tags\nfull@example.com,one-more\nok@example.com,x\n"),
    );
    expect(await runJob(h, job.id)).toBe("completed");
    expect(counts(await jobRow(h.db, job.id))).toMatchObject({ created: 1, updated: 0, invalid: 1 });
    expect(await rejected(h.db, job.id)).toEqual([
      {
        line: 2,
        reason: "the lead would then hold more than 100 attributes, 64 KB of attributes or 100 tags",
        cells: ["full@example.com", "one-more"],
      },
    ]);
  });
});

describe("XLSX", () => {
  it("imports a workbook: dates as ISO 8601 attributes, leading zeros kept", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Contacts");
    ws.addRow(["Email", "First Name", "Birthday", "Customer No"]);
    for (let i = 0; i < 2500; i++) {
      const r = ws.addRow([`x${i}@example.com`, `X${i}`, new Date(Date.UTC(1990, 0, 1 + i)), i]);
      r.getCell(3).numFmt = "dd/mm/yyyy";
      r.getCell(4).numFmt = "000000";
    }
    const projectId = await newProject(h.db);
    const job = await stageJob(h, projectId, Buffer.from(await wb.xlsx.writeBuffer()), {
      fileName: "crm.xlsx",
    });
    expect(await runJob(h, job.id)).toBe("completed");
    expect(counts(await jobRow(h.db, job.id))).toMatchObject({ total: 2500, processed: 2500, created: 2500 });
    const one = (await leadsOf(h.db, projectId)).find((l) => l.email === "x31@example.com");
    expect(one).toMatchObject({
      first_name: "X31",
      attributes: { birthday: "1990-02-01", customer_no: "000031" },
    });
  });
});

describe("bad input found while processing", () => {
  it("a 50 MB cell deep in the file fails the job before any row is written", async () => {
    const projectId = await newProject(h.db);
    const file = Buffer.concat([
      contactsCsv(3000),
      Buffer.from("late@example.com,"),
      Buffer.alloc(50 * 1024 * 1024, "z"),
      Buffer.from(",x,y,z,w\r\n"),
    ]);
    const job = await stageJob(h, projectId, file);
    expect(await runJob(h, job.id)).toBe("failed");
    expect(await jobRow(h.db, job.id)).toMatchObject({
      status: "failed",
      failure_reason: "line 3002: a row is larger than 1 MB",
      processed_rows: 0,
    });
    expect(await leadsOf(h.db, projectId)).toEqual([]);
  });

  it("the file vanished from storage: failed with the reason", async () => {
    const projectId = await newProject(h.db);
    const job = await stageJob(h, projectId, contactsCsv(5));
    await fetch(`${h.s3.endpoint}/imports/${job.storage_key}`, { method: "DELETE" });
    expect(await runJob(h, job.id)).toBe("failed");
    expect((await jobRow(h.db, job.id)).failure_reason).toBe("the uploaded file is no longer stored");
  });
});

describe("cancel", () => {
  it("a job cancelled while processing stops at its next chunk; committed chunks stay", async () => {
    const projectId = await newProject(h.db);
    const job = await stageJob(h, projectId, contactsCsv(20_000));
    const run = runJob(h, job.id, 200);
    await waitUntil(async () => Number((await jobRow(h.db, job.id)).processed_rows) > 0);
    await h.db.pool.query("UPDATE import_jobs SET status = 'cancelled' WHERE id = $1", [job.id]);
    expect(await run).toBe("cancelled");
    const after = await jobRow(h.db, job.id);
    expect(after.status).toBe("cancelled");
    expect(Number(after.processed_rows)).toBeLessThan(20_000);
    expect((await leadsOf(h.db, projectId)).length).toBe(after.created_count);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}
