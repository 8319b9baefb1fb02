import { readFileSync } from "node:fs";
import { createS3Client, providerConfigFromEnv, putObject, type S3ClientType } from "@emailsvc/provider";
import type { Batcher } from "@emailsvc/db";
import { type BaseDeps, createBaseDeps, createOutbox, type Outbox } from "@emailsvc/runtime";
import { type AcceptResult, type AcceptSendInput, createAcceptBatcher } from "@emailsvc/sending";
import type { Env } from "./env";
import { type AttachmentStore } from "./relay/store-attachments";

export interface Deps extends BaseDeps {
  env: Env;
  outbox: Outbox;
  /** The accepts, group-committed as public-api's: the messages of many connections in one statement. */
  accepts: Batcher<AcceptSendInput, AcceptResult>;
  s3: S3ClientType;
  attachments: AttachmentStore;
  /** The certificate of the TLS listeners, or null (plain port only: local development). */
  tls: { cert: Buffer; key: Buffer } | null;
}

/** PEM text as given, or the contents of the file it names (a mounted Kubernetes Secret). */
const pem = (value: string): Buffer =>
  value.trimStart().startsWith("-----BEGIN") ? Buffer.from(value) : readFileSync(value);

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("smtp-relay", env);
  const s3 = createS3Client(providerConfigFromEnv(env, "s3", { requestTimeoutMs: 15_000 }));
  const bucket = env.ATTACHMENTS_BUCKET;
  const outbox = createOutbox(base);
  return {
    ...base,
    env,
    outbox,
    // a message's email.send-requested goes to this process's relay straight from the accept: no lease statement
    accepts: createAcceptBatcher(base.db, { handoff: outbox.handoff }),
    s3,
    attachments: {
      bucket,
      put: (key, body, contentType) => putObject(s3, { bucket, key, body, contentType }),
    },
    tls:
      env.SMTP_TLS_CERT && env.SMTP_TLS_KEY
        ? { cert: pem(env.SMTP_TLS_CERT), key: pem(env.SMTP_TLS_KEY) }
        : null,
  };
}
