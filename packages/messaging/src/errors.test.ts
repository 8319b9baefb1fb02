import { AppError, ErrorCode } from "@emailsvc/contracts";
import { isPermanent, PermanentError, RetryableError } from "./errors";

describe("isPermanent: how a consumer settles what a handler threw", () => {
  it("parks a PermanentError and an AppError no retry can fix", () => {
    expect(isPermanent(new PermanentError("gone"))).toBe(true);
    expect(isPermanent(new AppError(ErrorCode.VALIDATION, "bad payload"))).toBe(true);
    expect(isPermanent(new AppError(ErrorCode.NOT_FOUND, "activity gone"))).toBe(true);
  });

  it("retries transient AppErrors and anything else", () => {
    for (const code of [
      ErrorCode.INTERNAL,
      ErrorCode.UNAVAILABLE,
      ErrorCode.RATE_LIMITED,
      ErrorCode.PROVIDER_TIMEOUT,
    ])
      expect(isPermanent(new AppError(code, "later"))).toBe(false);
    expect(isPermanent(new RetryableError("busy"))).toBe(false);
    expect(isPermanent(new Error("connection reset"))).toBe(false);
  });
});
