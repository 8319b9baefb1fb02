import { z } from "zod";
import { EnvError, loadEnv } from "./load-env";
import { apiKeyEncryptionEnv, dbEnv, httpEnv } from "./pieces";

describe("loadEnv", () => {
  const schema = dbEnv.extend(httpEnv(3001).shape).extend(apiKeyEncryptionEnv.shape);

  it("applies defaults and coerces numbers", () => {
    const env = loadEnv("svc", schema, { PORT: "4000", API_KEY_ENCRYPTION_KEY: "a".repeat(64) });
    expect(env.PORT).toBe(4000);
    expect(env.DATABASE_URL).toContain("postgresql://");
  });

  it("lists every problem in one readable error", () => {
    let err: unknown;
    try {
      loadEnv("public-api", schema, { PORT: "not-a-port" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EnvError);
    const message = (err as Error).message;
    expect(message).toContain("Invalid environment for public-api");
    expect(message).toContain("PORT");
    expect(message).toContain("API_KEY_ENCRYPTION_KEY: is required");
  });

  it("keeps the schema's output type", () => {
    const env = loadEnv("x", z.object({ A: z.coerce.number() }), { A: "2" });
    expect(env.A + 1).toBe(3);
  });
});
