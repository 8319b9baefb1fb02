// Attachments of POST /v1/send-email (spec 2, 7, 8): type, count and size rules, S3 storage, and URL downloads
// with SSRF protection. Real: PostgreSQL, RabbitMQ, Redis, s3rver, local HTTP servers as attachment hosts.
import request from "supertest";
import { createApp } from "../src/app";
import { createSafeDownloader } from "../src/sends/attachments/safe-download";
import { isPublicUnicast } from "@emailsvc/http";
import type { StoredAttachment } from "../src/sends/attachments/prepare-attachments";
import {
  bearer,
  ICS_TEXT,
  makeProject,
  PDF_BYTES,
  startFileServer,
  startHarness,
  startS3,
  testEnv,
  type Harness,
  type TestProject,
} from "./helpers";

const MB = 1024 * 1024;
const BLOCKED = "attachments[0]: Attachment URL points to a private or reserved address";

let strict: Harness; // ATTACHMENT_URL_ALLOW_PRIVATE off (the default)
let open: Harness; // ATTACHMENT_URL_ALLOW_PRIVATE=true, as a local stack serving its own files
let s3: Awaited<ReturnType<typeof startS3>>;
let p: TestProject;
let files: Awaited<ReturnType<typeof startFileServer>>;

beforeAll(async () => {
  s3 = await startS3();
  strict = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint }));
  open = await startHarness(
    testEnv({
      S3_ENDPOINT: s3.endpoint,
      ATTACHMENT_URL_ALLOW_PRIVATE: "true",
      ATTACHMENT_DOWNLOAD_TIMEOUT_MS: "700",
    }),
  );
  files = await startFileServer((req, res) => {
    if (req.url === "/invoice.pdf") {
      res.setHeader("content-type", "application/pdf");
      return res.end(PDF_BYTES);
    }
    if (req.url === "/download?id=7") {
      res.setHeader("content-type", "text/calendar; charset=utf-8");
      return res.end(ICS_TEXT);
    }
    if (req.url === "/image") {
      res.setHeader("content-type", "image/png");
      return res.end("png");
    }
    if (req.url === "/hang") return; // never answers
    if (req.url === "/huge") {
      res.setHeader("content-type", "application/pdf");
      const chunk = Buffer.alloc(MB, 1);
      let sent = 0;
      const pump = () => {
        while (sent < 11 && res.write(chunk)) sent++;
        if (sent < 11) res.once("drain", pump);
        else res.end();
      };
      return pump();
    }
    if (req.url?.startsWith("/loop")) {
      res.writeHead(302, { location: "/loop" });
      return res.end();
    }
    res.statusCode = 404;
    res.end();
  });
});
afterAll(async () => {
  await files?.close();
  await open?.close();
  await strict?.close();
  await s3?.close();
});
beforeEach(async () => {
  p = await makeProject(strict.deps);
});

const send = (h: Harness, attachments: unknown[], app = h.app) =>
  request(app).post("/v1/send-email").set(bearer(p.liveKey)).send({
    recipient_email: "a@example.org",
    sender_email: p.sender,
    html_body: "<p>see attached</p>",
    attachments,
  });
const b64 = (b: Buffer | string) => Buffer.from(b).toString("base64");

async function storedAttachments(h: Harness, emailId: string): Promise<StoredAttachment[]> {
  const msg = await h.deps.db.prisma.emailMessage.findUniqueOrThrow({ where: { id: emailId } });
  return msg.attachments as unknown as StoredAttachment[];
}

describe("inline content", () => {
  it("stores each attachment in S3 and records filename, detected contentType, size and storageKey", async () => {
    const res = await send(strict, [
      { filename: "invoice.pdf", content: b64(PDF_BYTES) },
      { filename: "meeting.ics", content: b64(ICS_TEXT) },
      {
        filename: "invite",
        content: b64(ICS_TEXT),
        // name and its RFC 2231 form are dropped: the part's name is the filename
        contentType: "Text/Calendar; method=REQUEST; name=x.ics; name*=utf-8''evil.exe",
      },
    ]);
    expect(res.status).toBe(200);
    const stored = await storedAttachments(strict, res.body.email_id);
    expect(stored).toEqual([
      {
        filename: "invoice.pdf",
        contentType: "application/pdf",
        size: PDF_BYTES.length,
        storageKey: expect.stringContaining(res.body.email_id),
      },
      {
        filename: "meeting.ics",
        contentType: "text/calendar",
        size: ICS_TEXT.length,
        storageKey: expect.any(String),
      },
      {
        filename: "invite",
        contentType: "text/calendar; method=REQUEST",
        size: ICS_TEXT.length,
        storageKey: expect.any(String),
      },
    ]);
    expect(await s3.getObject(stored[0]!.storageKey)).toEqual(PDF_BYTES);
    expect((await s3.getObject(stored[1]!.storageKey))?.toString()).toBe(ICS_TEXT);
  });

  it.each([
    [
      { filename: "photo.png", content: b64("x") },
      "attachments[0]: type image/png is not allowed; allowed types are application/pdf and text/calendar",
    ],
    [
      { filename: "a.pdf", content: b64("x"), contentType: "image/jpeg" },
      "attachments[0]: type image/jpeg is not allowed; allowed types are application/pdf and text/calendar",
    ],
    [
      { filename: "noext", content: b64("x") },
      "attachments[0]: contentType is required when the filename has no known extension",
    ],
    [{ filename: "a.pdf" }, "attachments[0]: needs exactly one of url or content"],
    [
      { filename: "a.pdf", content: b64("x"), url: "https://example.com/a.pdf" },
      "attachments[0]: needs exactly one of url or content",
    ],
    [{ content: b64("x") }, "attachments[0].filename: is required"],
    [
      { filename: "a.pdf", content: `data:application/pdf;base64,${b64("x")}` },
      "attachments[0]: content must be raw base64 without a data: prefix",
    ],
    [{ filename: "a.pdf", content: "not base64!!" }, "attachments[0]: content is not valid base64"],
    // A media type that would put a control or non-Latin-1 character into the S3 request and the MIME headers.
    [
      { filename: "a.pdf", content: b64("x"), contentType: "application/pdf;\nx=1" },
      'attachments[0]: contentType "application/pdf;\\nx=1" is not a valid media type',
    ],
    [
      { filename: "a.pdf", content: b64("x"), contentType: "application/pdf; x=\u20ac" },
      'attachments[0]: contentType "application/pdf; x=\u20ac" is not a valid media type',
    ],
    [
      { filename: "a.pdf", content: b64("x"), contentType: 'application/pdf; x="\u00e9"' },
      'attachments[0]: contentType "application/pdf; x=\\"\u00e9\\"" is not a valid media type',
    ],
    [
      { filename: "../../etc/passwd.pdf", content: b64("x") },
      "attachments[0]: filename must not contain path separators or control characters",
    ],
    // the type rule cannot be bypassed through the name mail clients open the file by
    [
      { filename: "invoice.exe", content: b64("MZ"), contentType: "application/pdf" },
      "attachments[0]: the filename's extension (.exe) does not match its type application/pdf",
    ],
    [
      { filename: "page.html", content: b64("<script>"), contentType: "text/calendar" },
      "attachments[0]: the filename's extension (.html) does not match its type text/calendar",
    ],
    [
      { filename: "invoice\u202efdp.exe", content: b64("x"), contentType: "application/pdf" },
      "attachments[0]: filename must not contain path separators or control characters",
    ],
    [
      { filename: "..", content: b64("x"), contentType: "application/pdf" },
      "attachments[0]: filename must not contain path separators or control characters",
    ],
  ])("400 for %j", async (attachment, error) => {
    const res = await send(strict, [attachment]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error });
  });

  it("at most 10 attachments", async () => {
    const one = { filename: "a.pdf", content: b64(PDF_BYTES) };
    const eleven = await send(strict, Array(11).fill(one));
    expect(eleven.status).toBe(400);
    expect(eleven.body.error).toBe("Too many attachments: 11. Maximum is 10.");
    const ten = await send(strict, Array(10).fill(one));
    expect(ten.status).toBe(200);
    expect(await storedAttachments(strict, ten.body.email_id)).toHaveLength(10);
  });

  it("10 MB each and in total: exactly 10 MB passes (a ~14 MB JSON body), one byte more is 413", async () => {
    const exact = await send(strict, [{ filename: "big.pdf", content: b64(Buffer.alloc(10 * MB, 7)) }]);
    expect(exact.status).toBe(200);
    const [stored] = await storedAttachments(strict, exact.body.email_id);
    expect(stored!.size).toBe(10 * MB);
    expect((await s3.getObject(stored!.storageKey))?.length).toBe(10 * MB);

    const over = await send(strict, [{ filename: "big.pdf", content: b64(Buffer.alloc(10 * MB + 1, 7)) }]);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({
      success: false,
      error: "attachments[0]: attachment exceeds the 10 MB limit",
    });

    const total = await send(strict, [
      { filename: "a.pdf", content: b64(Buffer.alloc(6 * MB, 1)) },
      { filename: "b.pdf", content: b64(Buffer.alloc(5 * MB, 1)) },
    ]);
    expect(total.status).toBe(413);
    expect(total.body.error).toBe("Attachments exceed the 10 MB total limit");
  });
});

describe("url attachments: SSRF protection (allow-private flag off)", () => {
  it.each([
    ["loopback literal", (port: number) => `http://127.0.0.1:${port}/invoice.pdf`],
    ["IPv6 loopback", (port: number) => `http://[::1]:${port}/invoice.pdf`],
    ["IPv4-mapped IPv6 loopback", (port: number) => `http://[::ffff:127.0.0.1]:${port}/invoice.pdf`],
    ["shorthand loopback", (port: number) => `http://127.1:${port}/invoice.pdf`],
    ["private 10/8", () => "http://10.0.0.1/invoice.pdf"],
    ["private 192.168/16", () => "http://192.168.1.1/invoice.pdf"],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["unique-local fc00::/7", () => "http://[fc00::1]/invoice.pdf"],
    ["unique-local fd00::", () => "http://[fd12:3456::1]/invoice.pdf"],
    ["CGNAT", () => "http://100.64.0.1/invoice.pdf"],
    ["unspecified", (port: number) => `http://0.0.0.0:${port}/invoice.pdf`],
    ["hostname resolving to loopback", (port: number) => `http://localhost:${port}/invoice.pdf`],
  ])("refuses %s, without connecting", async (_name, url) => {
    const before = files.hits.length;
    const res = await send(strict, [{ filename: "invoice.pdf", url: url(files.port) }]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: BLOCKED });
    expect(files.hits.length).toBe(before);
  });

  it("refuses non-http schemes", async () => {
    const res = await send(strict, [{ filename: "passwd.pdf", url: "file:///etc/passwd" }]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("attachments[0]: Attachment URL must use http or https");
  });

  it("re-checks every redirect hop: a public host redirecting to a private address is refused", async () => {
    // 127.0.0.1 plays "the public internet" for this test only; every other address keeps the default policy.
    const pretendPublic = createSafeDownloader({
      timeoutMs: 2000,
      maxBytes: 10 * MB,
      maxRedirects: 5,
      allowAddress: (ip) => ip === "127.0.0.1" || isPublicUnicast(ip),
    });
    const internal = await startFileServer((_req, res) => res.end(PDF_BYTES), "127.0.0.2");
    const redirector = await startFileServer((req, res) => {
      const target =
        req.url === "/to-internal"
          ? `${internal.url}/secret.pdf`
          : req.url === "/to-metadata"
            ? "http://169.254.169.254/"
            : "/final.pdf";
      if (req.url === "/final.pdf") {
        res.setHeader("content-type", "application/pdf");
        return res.end(PDF_BYTES);
      }
      res.writeHead(302, { location: target });
      res.end();
    });
    const app = createApp({ ...strict.deps, downloader: pretendPublic });
    try {
      const hop = await send(strict, [{ filename: "a.pdf", url: `${redirector.url}/to-internal` }], app);
      expect(hop.status).toBe(400);
      expect(hop.body.error).toBe(BLOCKED);
      expect(internal.hits).toEqual([]);
      expect(redirector.hits).toEqual(["/to-internal"]);

      const metadata = await send(strict, [{ filename: "a.pdf", url: `${redirector.url}/to-metadata` }], app);
      expect(metadata.body.error).toBe(BLOCKED);

      // The same policy follows a redirect that stays on allowed addresses.
      const fine = await send(strict, [{ filename: "a.pdf", url: `${redirector.url}/somewhere` }], app);
      expect(fine.status).toBe(200);
      const [stored] = await storedAttachments(strict, fine.body.email_id);
      expect(await s3.getObject(stored!.storageKey)).toEqual(PDF_BYTES);
    } finally {
      await pretendPublic.close();
      await internal.close();
      await redirector.close();
    }
  });
});

describe("url attachments with ATTACHMENT_URL_ALLOW_PRIVATE=true (local stacks and tests)", () => {
  it("downloads, stores, and takes the type from the response when the filename has no extension", async () => {
    const q = await makeProject(open.deps);
    const res = await request(open.app)
      .post("/v1/send-email")
      .set(bearer(q.liveKey))
      .send({
        recipient_email: "a@example.org",
        sender_email: q.sender,
        html_body: "x",
        attachments: [
          { filename: "invoice.pdf", url: `${files.url}/invoice.pdf` },
          { filename: "calendar", url: `http://localhost:${files.port}/download?id=7` },
        ],
      });
    expect(res.status).toBe(200);
    const stored = await storedAttachments(open, res.body.email_id);
    expect(stored.map((a) => [a.filename, a.contentType, a.size])).toEqual([
      ["invoice.pdf", "application/pdf", PDF_BYTES.length],
      ["calendar", "text/calendar", ICS_TEXT.length],
    ]);
    expect(await s3.getObject(stored[0]!.storageKey)).toEqual(PDF_BYTES);
  });

  it.each([
    [
      "a disallowed downloaded type",
      "/image",
      "file",
      400,
      "attachments[0]: type image/png is not allowed; allowed types are application/pdf and text/calendar",
    ],
    ["a download timeout", "/hang", "a.pdf", 400, "attachments[0]: Attachment download timed out"],
    [
      "a body over 10 MB (streamed, no Content-Length)",
      "/huge",
      "a.pdf",
      413,
      "attachments[0]: attachment exceeds the 10 MB limit",
    ],
    [
      "more than 5 redirects",
      "/loop",
      "a.pdf",
      400,
      "attachments[0]: Attachment URL redirected more than 5 times",
    ],
    ["an HTTP error", "/missing.pdf", "a.pdf", 400, "attachments[0]: Attachment URL answered HTTP 404"],
  ])("refuses %s", async (_name, path, filename, status, error) => {
    const q = await makeProject(open.deps);
    const started = Date.now();
    const res = await request(open.app)
      .post("/v1/send-email")
      .set(bearer(q.liveKey))
      .send({
        recipient_email: "a@example.org",
        sender_email: q.sender,
        html_body: "x",
        attachments: [{ filename, url: `${files.url}${path}` }],
      });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ success: false, error });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await open.deps.db.prisma.emailMessage.count({ where: { projectId: q.projectId } })).toBe(0);
  });
});
