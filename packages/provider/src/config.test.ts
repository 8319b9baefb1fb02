import { providerConfigFromEnv, providerConfigSchema } from "./config";
import { createS3Client, createSesClient } from "./clients";

describe("provider config and clients", () => {
  it("parses a local config and builds clients pointed at the endpoint", async () => {
    const cfg = providerConfigSchema.parse({
      endpoint: "http://127.0.0.1:4566",
      accessKeyId: "a",
      secretAccessKey: "b",
      maxAttempts: "1",
    });
    expect(cfg.region).toBe("us-east-1");
    expect(cfg.maxAttempts).toBe(1);
    const ses = createSesClient(cfg);
    const endpoint = await ses.config.endpoint?.();
    expect(`${endpoint?.protocol}//${endpoint?.hostname}:${endpoint?.port}`).toBe("http://127.0.0.1:4566");
    const s3 = createS3Client(cfg);
    expect(s3.config.forcePathStyle).toBe(true);
    expect(await s3.config.requestChecksumCalculation()).toBe("WHEN_REQUIRED");
    ses.destroy();
    s3.destroy();
  });

  it("rejects a malformed endpoint", () => {
    expect(providerConfigSchema.safeParse({ endpoint: "not a url" }).success).toBe(false);
  });

  it("reads one service's configuration from the env", () => {
    const env = {
      AWS_REGION: "eu-west-1",
      SES_ENDPOINT: "http://127.0.0.1:4566",
      S3_ENDPOINT: "http://127.0.0.1:4569",
      AWS_ACCESS_KEY_ID: "a",
      AWS_SECRET_ACCESS_KEY: "b",
    };
    expect(providerConfigFromEnv(env, "s3")).toEqual({
      region: "eu-west-1",
      endpoint: "http://127.0.0.1:4569",
      accessKeyId: "a",
      secretAccessKey: "b",
    });
    expect(providerConfigFromEnv(env, "ses", { maxAttempts: 1 })).toMatchObject({
      endpoint: "http://127.0.0.1:4566",
      maxAttempts: 1,
    });
    // production: no endpoint override, the SDK's default credential chain
    expect(providerConfigFromEnv({ AWS_REGION: "us-east-1" }, "sns")).toEqual({ region: "us-east-1" });
  });
});
