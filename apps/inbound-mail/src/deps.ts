import {
  createS3Client,
  createSesV1Client,
  providerConfigFromEnv,
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
  return {
    ...base,
    env,
    outbox: createOutbox(base),
    s3: createS3Client(providerConfigFromEnv(env, "s3", { requestTimeoutMs: 15_000 })),
    sesV1: createSesV1Client(providerConfigFromEnv(env, "ses", { requestTimeoutMs: 15_000 })),
    verify: snsVerifierFromEnv({
      SNS_CERT_HOST_PATTERN: env.SNS_CERT_HOST_PATTERN,
      SNS_ALLOW_HTTP_CERT_URLS: env.SNS_ALLOW_HTTP_CERT_URLS,
      SNS_TOPIC_ARNS: env.INBOUND_SNS_ALLOW_ANY_TOPIC ? "" : env.INBOUND_SNS_TOPIC_ARNS,
    }),
  };
}
