import type { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { headObjectSize } from "./objects";

/** S3's smallest part but the last; parts of this size bound what an upload holds in memory. */
export const UPLOAD_PART_BYTES = 8 * 1024 * 1024;

/** The upload passed `maxBytes`: nothing was stored (the multipart upload was aborted). */
export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
    this.name = "ObjectTooLargeError";
  }
}

/**
 * Streams `body` into the object without ever holding more than one part (8 MB): a body that fits one part is one
 * PutObject, a longer one a multipart upload. Past `maxBytes` it stops reading, aborts what it uploaded and throws
 * ObjectTooLargeError. Resolves with the bytes stored.
 */
export async function putObjectStream(
  s3: S3Client,
  input: {
    bucket: string;
    key: string;
    body: AsyncIterable<Uint8Array>;
    maxBytes: number;
    contentType?: string;
  },
): Promise<number> {
  const { bucket, key } = input;
  let uploadId: string | undefined;
  const parts: { ETag: string; PartNumber: number }[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  const flushPart = async () => {
    uploadId ??= (
      await s3.send(
        new CreateMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          ...(input.contentType ? { ContentType: input.contentType } : {}),
        }),
      )
    ).UploadId;
    const body = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: parts.length + 1,
        Body: body,
        ContentLength: body.length,
      }),
    );
    parts.push({ ETag: part.ETag ?? "", PartNumber: parts.length + 1 });
  };
  try {
    for await (const chunk of input.body) {
      total += chunk.length;
      if (total > input.maxBytes) throw new ObjectTooLargeError(input.maxBytes);
      pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      pendingBytes += chunk.length;
      if (pendingBytes >= UPLOAD_PART_BYTES) await flushPart();
    }
    if (!uploadId) {
      const body = Buffer.concat(pending, pendingBytes);
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentLength: body.length,
          ...(input.contentType ? { ContentType: input.contentType } : {}),
        }),
      );
      return total;
    }
    if (pendingBytes > 0) await flushPart();
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    return total;
  } catch (err) {
    if (uploadId)
      await s3
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
        .catch(() => undefined);
    throw err;
  }
}

/** The object's bytes `start`..`end` (inclusive), or all of them, as a Node stream. */
export async function getObjectStream(
  s3: S3Client,
  bucket: string,
  key: string,
  range?: { start: number; end: number },
): Promise<Readable> {
  const out = await s3.send(
    new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
    }),
  );
  if (!out.Body) throw new Error(`S3 object ${bucket}/${key} has no body`);
  return out.Body as Readable;
}

/** A stored object read as ranged streams: what a file importer needs (`size`, `open(range?)`). */
export interface ObjectSource {
  size: number;
  open(range?: { start: number; end: number }): Promise<Readable>;
}

/** The object as an ObjectSource, or null when it does not exist. */
export async function objectSource(s3: S3Client, bucket: string, key: string): Promise<ObjectSource | null> {
  const size = await headObjectSize(s3, bucket, key);
  if (size === null) return null;
  return { size, open: (range) => getObjectStream(s3, bucket, key, range) };
}

export async function deleteObject(s3: S3Client, bucket: string, key: string): Promise<void> {
  await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
}
