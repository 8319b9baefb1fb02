import { classifyProviderError, isProviderTimeout } from "./classify-provider-error";

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
});
