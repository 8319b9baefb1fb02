import { canonicalJson, requestFingerprint, requestFingerprintAsync } from "./fingerprint";

test("key order does not change the canonical form, nested objects included", () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
    '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
  );
  expect(requestFingerprint("post", "/v1/send-email", "test", { a: 1, b: 2 })).toBe(
    requestFingerprint("POST", "/v1/send-email", "test", { b: 2, a: 1 }),
  );
});

test("method, path, the key's mode and body each change the fingerprint", () => {
  const base = requestFingerprint("POST", "/v1/send-email", "test", { a: 1 });
  expect(requestFingerprint("POST", "/v1/send-template-email", "test", { a: 1 })).not.toBe(base);
  expect(requestFingerprint("PUT", "/v1/send-email", "test", { a: 1 })).not.toBe(base);
  expect(requestFingerprint("POST", "/v1/send-email", "test", { a: 2 })).not.toBe(base);
  expect(requestFingerprint("POST", "/v1/send-email", "live", { a: 1 })).not.toBe(base);
});

const batchBody = (n: number) => ({
  sender: "a@example.org",
  html: "<p>{{name}}</p>",
  skipped: undefined,
  recipients: Array.from({ length: n }, (_, i) => ({
    email: `user${i}@example.org`,
    data: { name: `U${i}`, nested: [i, { z: null, a: [undefined, "\u2028"] }], gone: undefined },
  })),
});

test("the yielding fingerprint equals the synchronous one, for small and for large bodies", async () => {
  for (const body of [
    null,
    undefined,
    "text",
    [1, [2, { b: 1, a: 2 }]],
    { b: 1, a: { d: [1], c: null } },
    batchBody(3),
    batchBody(20_000),
  ]) {
    expect(await requestFingerprintAsync("post", "/v1/send-batch", "test", body)).toBe(
      requestFingerprint("POST", "/v1/send-batch", "test", body),
    );
  }
});

test("other work gets the event loop while a large body is fingerprinted", async () => {
  let turns = 0;
  let done = false;
  const spin = () => {
    turns++;
    if (!done) setImmediate(spin);
  };
  setImmediate(spin);
  await requestFingerprintAsync("POST", "/v1/send-batch", "test", batchBody(100_000));
  done = true;
  expect(turns).toBeGreaterThan(2);
});

test("addresses are compared case-insensitively: a retry spelling them in another case is the same request", async () => {
  const single = (to: string, cc: string[]) => ({
    recipient_email: to,
    cc,
    sender_email: "Shop@x.org",
    html_body: "Hi",
  });
  const base = requestFingerprint("POST", "/v1/send-email", "test", single("Bob@x.org", ["A@x.org"]));
  expect(requestFingerprint("POST", "/v1/send-email", "test", single("bob@X.org", ["a@x.org"]))).toBe(base);
  expect(requestFingerprint("POST", "/v1/send-email", "test", single("bob2@x.org", ["a@x.org"]))).not.toBe(
    base,
  );
  // only addresses: the same letters in another field (here the body) are another request
  expect(
    requestFingerprint("POST", "/v1/send-email", "test", {
      ...single("Bob@x.org", ["A@x.org"]),
      html_body: "HI",
    }),
  ).not.toBe(base);
  const batch = (email: string) => ({ sender: "a@x.org", recipients: [{ email, data: { name: "Ann" } }] });
  const b = await requestFingerprintAsync("POST", "/v1/send-batch", "test", batch("Ann.Case@X.org"));
  expect(await requestFingerprintAsync("POST", "/v1/send-batch", "test", batch("ann.case@x.org"))).toBe(b);
  expect(requestFingerprint("POST", "/v1/send-batch", "test", batch("ann.case@x.org"))).toBe(b);
  expect(
    requestFingerprint("POST", "/v1/send-batch", "test", {
      ...batch("ann.case@x.org"),
      recipients: [{ email: "ann.case@x.org", data: { name: "ANN" } }],
    }),
  ).not.toBe(b);
});
