import { createS3Client, getObjectBytes, providerConfigFromEnv } from "@emailsvc/provider";
import type { Env } from "../env";
import type { InboundMimeReader } from "./read-raw";

/** Reads received MIME from the inbound bucket (INBOUND_BUCKET), where SES's S3 receipt action stores it. */
export function createInboundMimeReader(
  env: Pick<
    Env,
    "AWS_REGION" | "S3_ENDPOINT" | "AWS_ACCESS_KEY_ID" | "AWS_SECRET_ACCESS_KEY" | "INBOUND_BUCKET"
  >,
): InboundMimeReader {
  const s3 = createS3Client(providerConfigFromEnv(env, "s3"));
  return (key) => getObjectBytes(s3, env.INBOUND_BUCKET, key);
}
