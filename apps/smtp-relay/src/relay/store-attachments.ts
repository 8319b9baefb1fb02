import type { StoredAttachment } from "@emailsvc/sending";
import type { CheckedAttachment } from "./domain/attachments";

/** Where attachment bytes go before the accept statement (ATTACHMENTS_BUCKET; s3rver locally). */
export interface AttachmentStore {
  readonly bucket: string;
  put(key: string, body: Buffer, contentType: string): Promise<void>;
}

const safeName = (filename: string): string => filename.replace(/[^A-Za-z0-9._-]/g, "_").slice(-100);

/**
 * Stores every attachment under `<project>/<email message>/<index>-<filename>`, the keys public-api writes and the
 * send-worker reads back. Runs before the accept statement: a refused or failed message can leave objects behind
 * (the bucket's lifecycle rule expires them), but an accepted email never points at a missing object.
 */
export async function storeAttachments(
  store: AttachmentStore,
  checked: readonly CheckedAttachment[],
  keyPrefix: string,
): Promise<StoredAttachment[]> {
  return Promise.all(
    checked.map(async (a) => {
      const storageKey = `${keyPrefix}/${a.index}-${safeName(a.filename)}`;
      await store.put(storageKey, a.bytes, a.contentType);
      return { filename: a.filename, contentType: a.contentType, size: a.bytes.length, storageKey };
    }),
  );
}
