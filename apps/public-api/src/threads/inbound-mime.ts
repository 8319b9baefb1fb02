import { createS3Client, getObjectBytes } from "@emailsvc/provider";
import type { Env } from "../env";
import type { InboundMimeReader } from "./read-raw";

/** Reads received MIME from the inbound bucket (INBOUND_BUCKET), where SES's S3 receipt action stores it. */
export function createInboundMimeReader(
  env: Pick<
    Env,
    "AWS_REGION" | "S3_ENDPOINT" | "AWS_ACCESS_KEY_ID" | "AWS_SECRET_ACCESS_KEY" | "INBOUND_BUCKET"
  >,
): InboundMimeReader {
  const s3 = createS3Client({
    region: env.AWS_REGION,
    ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
    ...(env.AWS_ACCESS_KEY_ID ? { accessKeyId: env.AWS_ACCESS_KEY_ID } : {}),
    ...(env.AWS_SECRET_ACCESS_KEY ? { secretAccessKey: env.AWS_SECRET_ACCESS_KEY } : {}),
  });
  return (key) => getObjectBytes(s3, env.INBOUND_BUCKET, key);
}
