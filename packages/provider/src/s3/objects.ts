import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";

export async function putObject(
  s3: S3Client,
  input: { bucket: string; key: string; body: Buffer | string; contentType?: string },
): Promise<void> {
  await s3.send(
    new PutObjectCommand({
      Bucket: input.bucket,
      Key: input.key,
      Body: input.body,
      ...(input.contentType ? { ContentType: input.contentType } : {}),
    }),
  );
}

/** The whole object as bytes (attachments, stored inbound MIME). */
export async function getObjectBytes(s3: S3Client, bucket: string, key: string): Promise<Buffer> {
  const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (!out.Body) throw new Error(`S3 object ${bucket}/${key} has no body`);
  return Buffer.from(await out.Body.transformToByteArray());
}
