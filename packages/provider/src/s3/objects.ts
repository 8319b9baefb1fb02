import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";

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

/**
 * The object's size, and its bytes when it holds at most `maxBytes`, in one request: a GET of its first
 * `maxBytes + 1` bytes, whose Content-Range names the whole object's size. A larger object is known to be too large
 * without more than the limit downloaded, and a small one costs one round trip instead of a HeadObject and a
 * GetObject. Null when there is no such object.
 */
export async function getObjectUpTo(
  s3: S3Client,
  bucket: string,
  key: string,
  maxBytes: number,
): Promise<{ size: number; bytes: Buffer | null } | null> {
  let out;
  try {
    out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=0-${maxBytes}` }));
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404) return null;
    // an empty object has no first byte to give: S3 answers 416
    if (e.name === "InvalidRange" || e.$metadata?.httpStatusCode === 416)
      return { size: 0, bytes: Buffer.alloc(0) };
    throw err;
  }
  if (!out.Body) throw new Error(`S3 object ${bucket}/${key} has no body`);
  // read to the end either way (at most maxBytes + 1 bytes), so the connection is reused
  const bytes = Buffer.from(await out.Body.transformToByteArray());
  // a server that ignores Range answers 200 with the whole object and no Content-Range
  const total = /\/(\d+)\s*$/.exec(out.ContentRange ?? "")?.[1];
  const size = total !== undefined ? Number(total) : bytes.length;
  return { size, bytes: size > maxBytes ? null : bytes };
}

/** The object's size in bytes, or null when there is no such object. */
export async function headObjectSize(s3: S3Client, bucket: string, key: string): Promise<number | null> {
  try {
    const out = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return out.ContentLength ?? 0;
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === "NotFound" || e.name === "NoSuchKey" || e.$metadata?.httpStatusCode === 404) return null;
    throw err;
  }
}

/**
 * A presigned GET of the object, valid `expiresInSeconds` (SigV4 allows at most 7 days, and the URL dies sooner
 * with the temporary credentials that signed it): hand it out right before it is used, never store it.
 */
export function presignGetObject(
  s3: S3Client,
  input: { bucket: string; key: string; expiresInSeconds: number; filename?: string; contentType?: string },
): Promise<string> {
  return getSignedUrl(
    s3,
    new GetObjectCommand({
      Bucket: input.bucket,
      Key: input.key,
      ...(input.filename
        ? {
            ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(input.filename)}`,
          }
        : {}),
      ...(input.contentType ? { ResponseContentType: input.contentType } : {}),
    }),
    { expiresIn: input.expiresInSeconds },
  );
}
