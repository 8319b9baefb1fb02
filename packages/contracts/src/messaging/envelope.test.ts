import { randomUUID } from "node:crypto";
import { projectIdOf } from "../project-id";
import { envelopeSchema, makeEnvelope } from "./envelope";

test("makeEnvelope builds a valid envelope that starts its own correlation chain", () => {
  const projectId = projectIdOf(randomUUID());
  const env = makeEnvelope("email.send-requested", { activityIds: ["a1"] }, { projectId });
  expect(envelopeSchema.parse(env)).toEqual(env);
  expect(env).toMatchObject({ type: "email.send-requested", version: 1, projectId, correlationId: env.id });
  expect(env.causationId).toBeUndefined();
});

test("correlation and causation are carried over when given", () => {
  const env = makeEnvelope(
    "email.sent",
    { activityId: "a1", projectId: projectIdOf(randomUUID()) },
    {
      projectId: null,
      correlationId: "req-1",
      causationId: "msg-0",
    },
  );
  expect(env).toMatchObject({ correlationId: "req-1", causationId: "msg-0", projectId: null });
});

test("the schema rejects a non-uuid projectId and a non-ISO occurredAt", () => {
  const env = makeEnvelope("email.send-rpc", { activityId: "a1" }, { projectId: null });
  expect(envelopeSchema.safeParse({ ...env, projectId: "p1" }).success).toBe(false);
  expect(envelopeSchema.safeParse({ ...env, occurredAt: "yesterday" }).success).toBe(false);
});
