/** An attachment already stored in S3 at accept time; the send-worker reads it back by `storageKey`. */
export interface StoredAttachment {
  filename: string;
  contentType: string;
  size: number;
  storageKey: string;
}

/**
 * The answer a request with an Idempotency-Key got, kept on its idempotency row so a duplicate replays it.
 * Opaque here: the caller that wrote it (an HTTP route) knows what it means.
 */
export interface StoredResponse {
  status: number;
  body: unknown;
}
