import { EventEmitter } from "node:events";
import type { Redis } from "ioredis";
import { projectIdOf } from "@emailsvc/contracts";
import { createLogger } from "@emailsvc/observability";
import { createApiKeyCache } from "./api-key-cache";

/** A stand-in for the subscriber connection: the test plays Redis's events itself (no timing involved). */
function fakeRedis() {
  const sub = Object.assign(new EventEmitter(), { subscribe: async () => 1, disconnect: () => undefined });
  return { sub, redis: { duplicate: () => sub, publish: async () => 1 } as unknown as Redis };
}

describe("createApiKeyCache", () => {
  it("does not cache an answer read before a key change it learned of meanwhile", async () => {
    const { sub, redis } = fakeRedis();
    let valid = true;
    let release!: () => void;
    let reads = 0;
    const lookup = async () => {
      reads++;
      const snapshot = valid; // what the database read saw
      if (reads === 1) await new Promise<void>((r) => (release = r));
      return snapshot ? { projectId: projectIdOf("p"), keyId: "k" } : null;
    };
    const cache = createApiKeyCache(lookup, redis, createLogger({ service: "t", level: "silent" }));
    sub.emit("ready");
    await new Promise((r) => setImmediate(r));
    expect(cache.listening()).toBe(true);

    const inFlight = cache.lookup("sk_test_old"); // its read saw the old key as valid
    valid = false; // the regenerate commits on another replica…
    sub.emit("message", "emailsvc:api-keys-changed", "p"); // …and its announcement arrives first
    release();
    expect(await inFlight).toEqual({ projectId: "p", keyId: "k" });
    expect(await cache.lookup("sk_test_old")).toBeNull(); // asked the database again, not the cache
    expect(reads).toBe(2);
    cache.close();
  });
});
