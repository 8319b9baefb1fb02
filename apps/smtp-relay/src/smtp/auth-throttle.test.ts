import { createAuthThrottle } from "./auth-throttle";

const attempt = (ip: string, username = "apikey", password = "sk_test_wrong") => ({ ip, username, password });

describe("createAuthThrottle", () => {
  it("blocks an IP after its failures, whatever it tries, and only that IP, until they age out", () => {
    let t = 0;
    const throttle = createAuthThrottle({ maxFailures: 3, windowMs: 1000, now: () => t });
    for (let i = 0; i < 2; i++) throttle.failed(attempt("10.0.0.1", "apikey", `guess-${i}`));
    expect(throttle.blocked(attempt("10.0.0.1", "apikey", "guess-9"))).toBe(false);
    throttle.failed(attempt("10.0.0.1", "other", "guess-2"));
    expect(throttle.blocked(attempt("10.0.0.1", "apikey", "sk_test_good"))).toBe(true);
    expect(throttle.blocked(attempt("10.0.0.2", "apikey", "sk_test_good"))).toBe(false);
    t = 1001;
    expect(throttle.blocked(attempt("10.0.0.1", "apikey", "sk_test_good"))).toBe(false);
  });

  it("blocks a username failing with one password from many IPs, but not that username's other passwords", () => {
    const throttle = createAuthThrottle({ maxFailures: 3, windowMs: 1000, now: () => 0 });
    for (let i = 1; i <= 3; i++) throttle.failed(attempt(`10.0.1.${i}`, "wordpress", "sk_live_revoked"));
    expect(throttle.blocked(attempt("10.0.1.9", "wordpress", "sk_live_revoked"))).toBe(true);
    expect(throttle.blocked(attempt("10.0.1.9", "WordPress", "sk_live_revoked"))).toBe(true);
    // nobody can lock out the username everyone uses: a working key is another bucket
    expect(throttle.blocked(attempt("10.0.1.9", "wordpress", "sk_live_good"))).toBe(false);
    for (let i = 1; i <= 3; i++) throttle.failed(attempt(`10.0.2.${i}`, "apikey", "sk_test_guess"));
    expect(throttle.blocked(attempt("10.0.2.9", "apikey", "sk_test_good"))).toBe(false);
    expect(throttle.blocked(attempt("10.0.2.9", "apikey", "sk_test_guess"))).toBe(true);
  });
});
