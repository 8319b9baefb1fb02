// The operator's sender allowlist of internal sends without x-project-id (issue 49 item 2): which senders pass,
// and which requests it does not judge. The middleware is called with a hand-built request and a recording next.
import type { Request, Response } from "express";
import { ErrorCode } from "@emailsvc/http";
import { internalSenderAllowlist, MSG_SENDER_NOT_ALLOWED, senderAllowed } from "./sender-allowlist";

describe("senderAllowed", () => {
  const list = ["ops@acme.example", "@billing.example"];
  it("allows a listed address or any address of a listed domain, in any case", () => {
    expect(
      [
        "ops@acme.example",
        " OPS@Acme.Example ",
        "anyone@billing.example",
        "other@acme.example",
        "x@sub.billing.example",
      ].map((s) => senderAllowed(list, s)),
    ).toEqual([true, true, true, false, false]);
  });
});

describe("internalSenderAllowlist", () => {
  function run(allowlist: string[], body: unknown, project?: string): unknown {
    let passed: unknown = "not called";
    const req = {
      body,
      header: (name: string) => (name === "x-project-id" ? project : undefined),
    } as unknown as Request;
    internalSenderAllowlist(allowlist)(req, {} as Response, (err?: unknown) => (passed = err));
    return passed;
  }

  it("refuses an unlisted sender of a send without a project with 403", () => {
    expect(run(["ops@acme.example"], { sender: "ceo@other.example" })).toMatchObject({
      code: ErrorCode.FORBIDDEN,
      message: MSG_SENDER_NOT_ALLOWED,
    });
  });

  it("lets through a listed sender, any send with a project, a body for the route's own 400, and an empty list", () => {
    expect(run(["ops@acme.example"], { sender: "ops@acme.example" })).toBeUndefined();
    expect(
      run(["ops@acme.example"], { sender: "ceo@other.example" }, "0190a0b0-0000-7000-8000-000000000005"),
    ).toBeUndefined();
    expect(run(["ops@acme.example"], { sender: 42 })).toBeUndefined();
    expect(run([], { sender: "ceo@other.example" })).toBeUndefined();
  });

  it("a blank x-project-id is no project", () => {
    expect(run(["ops@acme.example"], { sender: "ceo@other.example" }, "  ")).toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
  });
});
