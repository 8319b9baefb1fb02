import { parseSesEvent } from "./ses-event";

describe("parseSesEvent", () => {
  const withDiagnostic = (text: string) =>
    `{"eventType":"Bounce","mail":{"messageId":"m1"},"bounce":{"bouncedRecipients":[{"diagnosticCode":${text}}]}}`;
  const diagnostic = (message: string) =>
    parseSesEvent(message).bounce!.bouncedRecipients![0]!.diagnosticCode as string;

  it("turns an escaped NUL or unpaired surrogate into U+FFFD, so PostgreSQL can store the event", () => {
    expect(diagnostic(withDiagnostic('"550 \\u0000 x"'))).toBe("550 \uFFFD x");
    expect(diagnostic(withDiagnostic('"a\\ud800b"'))).toBe("a\uFFFDb");
    expect(diagnostic(withDiagnostic('"a\\udc00b"'))).toBe("a\uFFFDb");
  });

  it("does the same for a raw one (the Message was itself a JSON string), and keeps a surrogate pair", () => {
    expect(diagnostic(withDiagnostic('"a\ud800b"'))).toBe("a\uFFFDb");
    expect(diagnostic(withDiagnostic('"mail 😀 \\ud83d\\ude00"'))).toBe("mail 😀 😀");
  });

  it("parses an ordinary event as it is, and throws on text that is not JSON", () => {
    expect(diagnostic(withDiagnostic('"smtp; 550 5.1.1 user unknown"'))).toBe("smtp; 550 5.1.1 user unknown");
    expect(() => parseSesEvent("not json")).toThrow();
  });
});
