import { createS3Client, providerConfigFromEnv, type S3ClientType } from "@emailsvc/provider";
import { type BaseDeps, createBaseDeps, createOutbox, type Outbox } from "@emailsvc/runtime";
import type { Env } from "./env";

export interface Deps extends BaseDeps {
  env: Env;
  outbox: Outbox;
  /** S3 client of the imports bucket (uploaded contact files). */
  importsS3: S3ClientType;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("scheduler", env);
  return {
    ...base,
    env,
    outbox: createOutbox(base, { batchSize: 200 }),
    importsS3: createS3Client(providerConfigFromEnv(env, "s3")),
  };
}
