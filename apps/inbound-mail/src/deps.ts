import {
  createS3Client,
  createSesV1Client,
  snsVerifierFromEnv,
  type S3ClientType,
  type SesV1Client,
} from "@emailsvc/provider";
import { type BaseDeps, createBaseDeps, createOutbox, type Outbox } from "@emailsvc/runtime";
import type { Env } from "./env";

export interface Deps extends BaseDeps {
  env: Env;
  outbox: Outbox;
  s3: S3ClientType;
  /** SES v1: SendBounce exists only there. */
  sesV1: SesV1Client;
  verify(message: Record<string, unknown>): Promise<void>;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("inbound-mail", env);
  const provider = {
    region: env.AWS_REGION,
    ...(env.AWS_ACCESS_KEY_ID ? { accessKeyId: env.AWS_ACCESS_KEY_ID } : {}),
    ...(env.AWS_SECRET_ACCESS_KEY ? { secretAccessKey: env.AWS_SECRET_ACCESS_KEY } : {}),
    requestTimeoutMs: 15_000,
  };
  return {
    ...base,
    env,
    outbox: createOutbox(base),
    s3: createS3Client({ ...provider, ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}) }),
    sesV1: createSesV1Client({ ...provider, ...(env.SES_ENDPOINT ? { endpoint: env.SES_ENDPOINT } : {}) }),
    verify: snsVerifierFromEnv({
      SNS_CERT_HOST_PATTERN: env.SNS_CERT_HOST_PATTERN,
      SNS_ALLOW_HTTP_CERT_URLS: env.SNS_ALLOW_HTTP_CERT_URLS,
      SNS_TOPIC_ARNS: env.INBOUND_SNS_ALLOW_ANY_TOPIC ? "" : env.INBOUND_SNS_TOPIC_ARNS,
    }),
  };
}
