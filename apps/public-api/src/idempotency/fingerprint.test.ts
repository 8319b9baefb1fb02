import { canonicalJson, requestFingerprint } from "./fingerprint";

test("key order does not change the canonical form, nested objects included", () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
    '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
  );
  expect(requestFingerprint("post", "/v1/send-email", { a: 1, b: 2 })).toBe(
    requestFingerprint("POST", "/v1/send-email", { b: 2, a: 1 }),
  );
});

test("method, path and body each change the fingerprint", () => {
  const base = requestFingerprint("POST", "/v1/send-email", { a: 1 });
  expect(requestFingerprint("POST", "/v1/send-template-email", { a: 1 })).not.toBe(base);
  expect(requestFingerprint("PUT", "/v1/send-email", { a: 1 })).not.toBe(base);
  expect(requestFingerprint("POST", "/v1/send-email", { a: 2 })).not.toBe(base);
});
