import { projectIdOf } from "@emailsvc/contracts";
import { createTemplateCache } from "./template-cache";

const p1 = projectIdOf("p1");
const p2 = projectIdOf("p2");

const t = {
  id: "0b7c6f1e-7a36-4b39-9d7e-2f0a1c3d4e5f",
  internalId: 7,
  subject: "Hi",
  html: "<p>{name}</p>",
  text: null,
};

test("an entry is found by UUID and by internal id, only within its project", () => {
  const cache = createTemplateCache();
  cache.set(p1, t);
  expect(cache.get(p1, { id: t.id })).toBe(t);
  expect(cache.get(p1, { internalId: 7 })).toBe(t);
  expect(cache.get(p2, { id: t.id })).toBeUndefined();
  expect(cache.get(p2, { internalId: 7 })).toBeUndefined();
});

test("entries expire after the TTL and can be invalidated", async () => {
  const cache = createTemplateCache({ ttlMs: 30 });
  cache.set(p1, t);
  await new Promise((r) => setTimeout(r, 60));
  expect(cache.get(p1, { id: t.id })).toBeUndefined();
  cache.set(p1, t);
  cache.invalidate(p1, t.id);
  expect(cache.get(p1, { internalId: 7 })).toBeUndefined();
});
