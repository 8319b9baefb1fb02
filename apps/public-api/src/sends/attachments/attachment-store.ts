/** Where attachment bytes go before the accept transaction (S3 bucket ATTACHMENTS_BUCKET; s3rver locally). */
export interface AttachmentStore {
  readonly bucket: string;
  put(key: string, body: Buffer, contentType: string): Promise<void>;
}
