import { CreateBucketCommand, HeadBucketCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { createS3Client } from "@emailsvc/provider";

export interface S3Target {
  client: S3Client;
  bucket: string;
  /** SES's S3 action `objectKeyPrefix`; the object key is prefix + SES message id. */
  prefix: string;
  ready?: Promise<void>;
}

export function createS3Target(cfg: {
  endpoint: string;
  bucket: string;
  prefix?: string;
  region?: string;
}): S3Target {
  return {
    // s3rver ignores signatures, but the SDK still needs some credentials to sign with.
    client: createS3Client({
      region: cfg.region ?? "us-east-1",
      endpoint: cfg.endpoint,
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    }),
    bucket: cfg.bucket,
    prefix: cfg.prefix ?? "inbound/",
  };
}

async function ensureBucket(t: S3Target): Promise<void> {
  try {
    await t.client.send(new HeadBucketCommand({ Bucket: t.bucket }));
  } catch {
    await t.client.send(new CreateBucketCommand({ Bucket: t.bucket })).catch((err: { name?: string }) => {
      if (err.name !== "BucketAlreadyOwnedByYou" && err.name !== "BucketAlreadyExists") throw err;
    });
  }
}

/** Stores the MIME where SES's S3 receipt action would, creating the bucket on first use. */
export async function storeInboundMime(
  t: S3Target,
  messageId: string,
  raw: string,
): Promise<{ bucketName: string; objectKey: string }> {
  t.ready ??= ensureBucket(t).catch((err) => {
    t.ready = undefined;
    throw err;
  });
  await t.ready;
  const objectKey = `${t.prefix}${messageId}`;
  await t.client.send(
    new PutObjectCommand({
      Bucket: t.bucket,
      Key: objectKey,
      Body: Buffer.from(raw, "utf8"),
      ContentType: "message/rfc822",
    }),
  );
  return { bucketName: t.bucket, objectKey };
}
