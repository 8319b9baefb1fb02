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
