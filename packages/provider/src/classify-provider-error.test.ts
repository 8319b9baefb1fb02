import {
  classifyProviderError,
  isProviderOutcomeUnknown,
  isProviderTimeout,
} from "./classify-provider-error";

const sdkError = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

describe("classifyProviderError", () => {
  it.each([
    ["TooManyRequestsException", 429],
    ["ThrottlingException", 400],
    ["LimitExceededException", 400],
    ["SomethingNew", 429],
  ])("%s (%i) is a throttle", (name, status) => {
    expect(classifyProviderError(sdkError(name, status))).toBe("throttle");
  });

  it.each([
    ["MessageRejected", 400],
    ["MailFromDomainNotVerifiedException", 400],
    ["AccountSuspendedException", 400],
    ["BadRequestException", 400],
    ["NotFoundException", 404],
    ["SomeValidationProblem", 422],
  ])("%s (%i) is permanent", (name, status) => {
    expect(classifyProviderError(sdkError(name, status))).toBe("permanent");
  });

  it.each([
    ["InternalFailure", 500],
    ["ServiceUnavailable", 503],
    ["RequestTimeout", 408],
  ])("%s (%i) is transient", (name, status) => {
    expect(classifyProviderError(sdkError(name, status))).toBe("transient");
  });

  it("treats network failures without an HTTP answer as transient, also when wrapped in a cause", () => {
    expect(
      classifyProviderError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })),
    ).toBe("transient");
    const wrapped = new TypeError("fetch failed", {
      cause: Object.assign(new Error("reset"), { code: "ECONNRESET" }),
    });
    expect(classifyProviderError(wrapped)).toBe("transient");
  });

  it("recognises SDK timeouts and classifies them transient", () => {
    const timeout = Object.assign(new Error("Connection timed out after 100 ms"), { name: "TimeoutError" });
    expect(isProviderTimeout(timeout)).toBe(true);
    expect(classifyProviderError(timeout)).toBe("transient");
    expect(isProviderTimeout(sdkError("MessageRejected", 400))).toBe(false);
  });

  it("tells a call that may have been accepted (no answer once connected) from one that never left or was answered", () => {
    // the SDK's request timeout, and a reset or broken pipe (which it renames TimeoutError)
    const requestTimeout = Object.assign(
      new Error("a request has exceeded the configured 500 ms requestTimeout"),
      {
        name: "TimeoutError",
        code: "ETIMEDOUT",
      },
    );
    const reset = Object.assign(new Error("socket hang up"), { name: "TimeoutError", code: "ECONNRESET" });
    expect(isProviderOutcomeUnknown(requestTimeout)).toBe(true);
    expect(isProviderOutcomeUnknown(reset)).toBe(true);
    expect(isProviderOutcomeUnknown(new TypeError("fetch failed", { cause: reset }))).toBe(true);
    // never connected
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const connectTimeout = Object.assign(
      new Error(
        "@smithy/node-http-handler - the request socket did not establish a connection with the server within the configured timeout of 500 ms.",
      ),
      { name: "TimeoutError" },
    );
    expect(isProviderOutcomeUnknown(refused)).toBe(false);
    expect(isProviderOutcomeUnknown(connectTimeout)).toBe(false);
    expect(isProviderOutcomeUnknown(Object.assign(new Error("dns"), { code: "ENOTFOUND" }))).toBe(false);
    expect(
      isProviderOutcomeUnknown(
        new Error("AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:1"),
      ),
    ).toBe(false);
    // answered: throttled, refused, or a 5xx (SES says it failed; retried as the SDK itself would)
    expect(isProviderOutcomeUnknown(sdkError("TooManyRequestsException", 429))).toBe(false);
    expect(isProviderOutcomeUnknown(sdkError("MessageRejected", 400))).toBe(false);
    expect(isProviderOutcomeUnknown(sdkError("InternalFailure", 500))).toBe(false);
  });
});
