import { createAuthThrottle } from "./auth-throttle";

describe("createAuthThrottle", () => {
  it("blocks an IP after its failures, and only that IP, until they age out", () => {
    let t = 0;
    const throttle = createAuthThrottle({ maxFailures: 3, windowMs: 1000, now: () => t });
    for (let i = 0; i < 2; i++) throttle.failed("10.0.0.1");
    expect(throttle.blocked("10.0.0.1")).toBe(false);
    throttle.failed("10.0.0.1");
    expect(throttle.blocked("10.0.0.1")).toBe(true);
    expect(throttle.blocked("10.0.0.2")).toBe(false);
    t = 1001;
    expect(throttle.blocked("10.0.0.1")).toBe(false);
  });
});
