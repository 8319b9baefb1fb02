import { randomUUID } from "node:crypto";
import { z } from "zod";
import { projectIdSchema, type ProjectId } from "../project-id";
import type { MessagePayload, MessageType } from "./payloads";

/**
 * Every message on the bus is one of these, whatever its type. Consumers validate it at the edge and park
 * anything that does not parse, so this shape is a wire contract: add optional fields, never rename.
 */
export const envelopeSchema = z.object({
  /** Unique per message; consumers use it for idempotency. */
  id: z.uuid(),
  /** The routing key it was published under (`email.sent`), so a queue bound to `email.#` can dispatch. */
  type: z.string().min(1),
  /** Payload schema version for this type; bump when a payload changes incompatibly. */
  version: z.number().int().positive(),
  /** When the fact happened or the command was issued (ISO 8601), not when it was published. */
  occurredAt: z.iso.datetime({ offset: true }),
  /** Tenant the message belongs to; null only for platform-wide messages. */
  projectId: projectIdSchema.nullable(),
  /** Shared by every message caused by one original request (logs and traces join on it). */
  correlationId: z.string().min(1),
  /** Id of the message (or request) that directly caused this one. */
  causationId: z.string().min(1).optional(),
  /** Type-specific body; ids, not state (consumers read current state from the database). */
  payload: z.unknown(),
});

export type Envelope<P = unknown> = Omit<z.infer<typeof envelopeSchema>, "payload"> & { payload: P };

export interface MakeEnvelopeOptions {
  projectId: ProjectId | null;
  /** Defaults to the new message's own id: it starts a new causal chain. */
  correlationId?: string;
  causationId?: string;
  version?: number;
  /** Defaults to now. */
  occurredAt?: Date;
}

/** Builds an envelope for a catalogue message type; the payload type follows from the routing key. */
export function makeEnvelope<K extends MessageType>(
  type: K,
  payload: MessagePayload<K>,
  opts: MakeEnvelopeOptions,
): Envelope<MessagePayload<K>> {
  const id = randomUUID();
  const envelope: Envelope<MessagePayload<K>> = {
    id,
    type,
    version: opts.version ?? 1,
    occurredAt: (opts.occurredAt ?? new Date()).toISOString(),
    projectId: opts.projectId,
    correlationId: opts.correlationId ?? id,
    payload,
  };
  if (opts.causationId !== undefined) envelope.causationId = opts.causationId;
  return envelope;
}
