import { createS3Client, type S3ClientType } from "@emailsvc/provider";
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
    importsS3: createS3Client({
      region: env.AWS_REGION,
      ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
      ...(env.AWS_ACCESS_KEY_ID ? { accessKeyId: env.AWS_ACCESS_KEY_ID } : {}),
      ...(env.AWS_SECRET_ACCESS_KEY ? { secretAccessKey: env.AWS_SECRET_ACCESS_KEY } : {}),
    }),
  };
}
