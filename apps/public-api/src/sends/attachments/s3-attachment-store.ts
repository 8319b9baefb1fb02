import { createS3Client, putObject, type ProviderConfig } from "@emailsvc/provider";
import type { AttachmentStore } from "./attachment-store";

/** Attachment bytes in S3 (s3rver locally), under keys the send-worker reads back. */
export function createS3AttachmentStore(cfg: ProviderConfig, bucket: string): AttachmentStore {
  const s3 = createS3Client(cfg);
  return {
    bucket,
    async put(key, body, contentType) {
      await putObject(s3, { bucket, key, body, contentType });
    },
  };
}
