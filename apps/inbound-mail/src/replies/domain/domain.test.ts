import { attachmentLink, checkAttachmentLink } from "../../attachments/domain/attachment-link";
import { sanitizeFilename } from "../../attachments/domain/filename";
import { normalizeMessageId, normalizeMessageIds } from "./message-ids";
import { readReceivedNotification } from "./ses-received";
import { normalizeSubject } from "./subject";

describe("normalizeSubject", () => {
  it.each([
    ["Re: Order 42", "order 42"],
    ["RE: re: Fwd: Order 42", "order 42"],
    ["AW: WG: Bestellung", "bestellung"],
    ["SV: VS: Tilaus", "tilaus"],
    ["RE[2]: Order 42", "order 42"],
    ["Re(3): Order 42", "order 42"],
    ["Re^2: Order 42", "order 42"],
    ["TR: Commande", "commande"],
    ["Antw: Bestelling", "bestelling"],
    ["[EXT] Re:  Order   42 ", "order 42"],
    ["Réf: Order 42", "réf: order 42"],
    ["Regarding: the plan", "regarding: the plan"],
    ["", ""],
  ])("%j → %j", (input, out) => expect(normalizeSubject(input)).toBe(out));
});

describe("normalizeMessageIds", () => {
  it("takes bracketed ids from a string or an array, bare and lower-cased, each once", () => {
    expect(normalizeMessageIds("<A@X.com> <b@y.org>\r\n <A@x.com>")).toEqual(["a@x.com", "b@y.org"]);
    expect(normalizeMessageIds(["<One@x>", "<two@x>"])).toEqual(["one@x", "two@x"]);
    expect(normalizeMessageIds("bare@id.example other@id")).toEqual(["bare@id.example", "other@id"]);
    expect(normalizeMessageIds(undefined)).toEqual([]);
    expect(normalizeMessageId(" <Only@One> ")).toBe("only@one");
  });
});

describe("sanitizeFilename", () => {
  it.each([
    ["../../etc/passwd", "passwd"],
    ["C:\\Users\\x\\invoice.pdf", "invoice.pdf"],
    [".htaccess", "htaccess"],
    ["..", "attachment"],
    ["a\u0000b\u001f.pdf", "ab.pdf"],
    ["Invoice #12 <final>?.pdf", "Invoice _12 _final__.pdf"],
    [null, "attachment"],
  ])("%j → %j", (input, out) => expect(sanitizeFilename(input)).toBe(out));

  it("keeps the extension of a name cut to 200 characters", () => {
    const name = sanitizeFilename(`${"x".repeat(300)}.pdf`);
    expect(name).toHaveLength(200);
    expect(name.endsWith(".pdf")).toBe(true);
  });
});

describe("attachment links", () => {
  const secret = "s".repeat(32);
  const id = "7b1d9a52-54a1-4a43-9c6e-0d8d9e7b1c01";
  it("accepts its own link until it expires, and nothing tampered", () => {
    const { url } = attachmentLink("https://mail.example.com/", secret, id, new Date(Date.now() + 60_000));
    const u = new URL(url);
    expect(u.pathname).toBe(`/api/inbound/attachments/${id}`);
    const expires = u.searchParams.get("expires")!;
    const sig = u.searchParams.get("sig")!;
    expect(checkAttachmentLink(secret, id, expires, sig)).toBe("ok");
    expect(checkAttachmentLink(secret, id, expires, sig, Date.now() + 120_000)).toBe("expired");
    expect(checkAttachmentLink(secret, id, String(Number(expires) + 1), sig)).toBe("invalid");
    expect(checkAttachmentLink(secret, id.replace("7b", "8b"), expires, sig)).toBe("invalid");
    expect(checkAttachmentLink("other".repeat(8), id, expires, sig)).toBe("invalid");
    expect(checkAttachmentLink(secret, id, undefined, sig)).toBe("invalid");
    expect(checkAttachmentLink(secret, id, expires, "zz")).toBe("invalid");
  });
});

describe("readReceivedNotification", () => {
  it("refuses what is not a Received notification with an S3 object or inline content", () => {
    expect(readReceivedNotification("{")).toBe("Message is not JSON");
    expect(readReceivedNotification('{"notificationType":"Bounce"}')).toBe(
      "not a Received notification (Bounce)",
    );
    expect(readReceivedNotification('{"notificationType":"Received","mail":{}}')).toBe(
      "mail.messageId is missing",
    );
    expect(
      readReceivedNotification(
        '{"notificationType":"Received","mail":{"messageId":"m"},"receipt":{"action":{"type":"Lambda"}}}',
      ),
    ).toBe("receipt.action.type Lambda is not S3 or SNS");
  });

  it("decodes an SNS action's base64 content", () => {
    const n = readReceivedNotification(
      JSON.stringify({
        notificationType: "Received",
        mail: { messageId: "m", destination: ["a@b.c"] },
        receipt: { action: { type: "SNS", encoding: "BASE64" } },
        content: Buffer.from("Subject: hi\r\n\r\nx").toString("base64"),
      }),
    );
    expect(n).toMatchObject({
      recipients: ["a@b.c"],
      action: { type: "SNS", content: "Subject: hi\r\n\r\nx" },
    });
  });
});
