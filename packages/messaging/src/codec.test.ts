import { makeEnvelope, projectIdOf } from "@emailsvc/contracts";
import { attemptOf, decodeEnvelope } from "./codec";

const body = (v: unknown) => ({ content: Buffer.from(typeof v === "string" ? v : JSON.stringify(v)) });
const env = makeEnvelope(
  "email.sent",
  { activityId: "a1", projectId: projectIdOf("6f1c1f0e-8a34-4c1e-9f57-2d1f5f7b1a10") },
  { projectId: null },
);

test("a valid envelope decodes with its payload", () => {
  const r = decodeEnvelope(body(env));
  expect(r).toEqual({ ok: true, envelope: env });
});

test("non-JSON, unknown types and bad payloads are invalid with a reason", () => {
  expect(decodeEnvelope(body("{nope"))).toEqual({ ok: false, reason: "body is not JSON" });
  expect(decodeEnvelope(body({ ...env, type: "email.exploded" }))).toEqual({
    ok: false,
    reason: "unknown message type email.exploded",
  });
  const bad = decodeEnvelope(body({ ...env, payload: { activityId: "a1" } }));
  expect(bad.ok).toBe(false);
  expect(!bad.ok && bad.reason).toContain("payload: projectId");
});

test("attempt comes from x-attempt, 1 when missing or garbage", () => {
  const msg = (h?: Record<string, unknown>) => ({ properties: { headers: h } }) as never;
  expect(attemptOf(msg())).toBe(1);
  expect(attemptOf(msg({ "x-attempt": 3 }))).toBe(3);
  expect(attemptOf(msg({ "x-attempt": "x" }))).toBe(1);
});
