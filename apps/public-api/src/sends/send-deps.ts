import type { Batcher, Db } from "@emailsvc/db";
import type { Broker } from "@emailsvc/messaging";
import type { Logger } from "@emailsvc/observability";
import type { AttachmentStore } from "./attachments/attachment-store";
import type { SafeDownloader } from "./attachments/safe-download";
import type { AuthContext, IdempotencyContext, StoredResponse } from "@emailsvc/http";
import type { ProjectId } from "@emailsvc/contracts";
import {
  type AcceptResult,
  type AcceptSendInput,
  type SendLane,
  type TemplateCache,
} from "@emailsvc/sending";

/** What the send use cases need (a subset of Deps, so tests can build it by hand). */
export interface SendDeps {
  db: Db;
  broker: Pick<Broker, "rpcCall">;
  logger: Logger;
  downloader: SafeDownloader;
  store: AttachmentStore;
  templateCache: TemplateCache;
  outbox: { kick(): void };
  /** The v1 accepts, group-committed (`createAcceptBatcher`). */
  accepts: Batcher<AcceptSendInput, AcceptResult>;
  /** How long the synchronous internal send waits for the send-worker. */
  rpcTimeoutMs: number;
  /** The lane of a project's v1 sends: bulk past its fair share of the provider rate (default transactional). */
  laneFor?: (projectId: ProjectId, recipients: number) => Promise<SendLane>;
}

/** A use case's answer: status + body, `replayed` when it is the stored answer of an earlier identical request. */
export interface SendOutcome extends StoredResponse {
  replayed?: boolean;
}

/** Who asked for a v1 send: the key's project and mode, its Idempotency-Key, the request's correlation id. */
export interface SendEmailContext {
  auth: AuthContext;
  idempotency?: IdempotencyContext;
  correlationId?: string;
}
