import { AppError } from "@emailsvc/contracts";
import { checkAttachments } from "./attachments";

const pdf = (size = 10, filename: string | undefined = "invoice.pdf") => ({
  filename,
  contentType: "application/pdf",
  content: Buffer.alloc(size),
});

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : "not an AppError";
  }
  return undefined;
};

describe("checkAttachments", () => {
  it("keeps allowed parts and names a part without a filename by its type", () => {
    const [a, b] = checkAttachments([pdf(), { contentType: "text/calendar", content: Buffer.from("x") }]);
    expect(a).toMatchObject({ filename: "invoice.pdf", contentType: "application/pdf" });
    expect(b).toMatchObject({ filename: "attachment-2.ics", contentType: "text/calendar" });
  });

  it("refuses a type outside spec 8's list and a name that claims another type", () => {
    expect(codeOf(() => checkAttachments([{ ...pdf(), contentType: "image/png" }]))).toBe("VALIDATION");
    expect(codeOf(() => checkAttachments([pdf(10, "invoice.exe")]))).toBe("VALIDATION");
    expect(codeOf(() => checkAttachments([pdf(10, "../x.pdf")]))).toBe("VALIDATION");
  });

  it("refuses over 10 MB for one part and for all parts together", () => {
    expect(codeOf(() => checkAttachments([pdf(10 * 1024 * 1024 + 1)]))).toBe("PAYLOAD_TOO_LARGE");
    expect(codeOf(() => checkAttachments([pdf(6 * 1024 * 1024), pdf(6 * 1024 * 1024)]))).toBe(
      "PAYLOAD_TOO_LARGE",
    );
    expect(codeOf(() => checkAttachments([pdf(10 * 1024 * 1024)]))).toBeUndefined();
  });
});
