import type { ConsumeMessage, Options } from "amqplib";
import { envelopeSchema, isMessageType, messageSchemas, type Envelope } from "@emailsvc/contracts";

/** Header carrying the 1-based handler attempt a (re)delivered message is on. */
export const ATTEMPT_HEADER = "x-attempt";

/** Publish properties for an envelope: persistent JSON, with the envelope's ids mirrored for broker tooling. */
export function envelopeProperties(
  envelope: unknown,
  headers?: Record<string, unknown> | null,
): Options.Publish {
  const e = (envelope ?? {}) as Partial<Record<keyof Envelope, unknown>>;
  const props: Options.Publish = {
    persistent: true,
    contentType: "application/json",
    headers: { ...(headers ?? {}) },
  };
  if (typeof e.id === "string") props.messageId = e.id;
  if (typeof e.type === "string") props.type = e.type;
  if (typeof e.correlationId === "string") props.correlationId = e.correlationId;
  return props;
}

export function encodeEnvelope(envelope: unknown): Buffer {
  return Buffer.from(JSON.stringify(envelope));
}

export type DecodeResult = { ok: true; envelope: Envelope } | { ok: false; reason: string };

/**
 * Parses and validates a delivery: the envelope shape, then the payload against the catalogue schema of its
 * type. A type missing from the catalogue is invalid: nobody agreed on its shape.
 */
export function decodeEnvelope(msg: Pick<ConsumeMessage, "content">): DecodeResult {
  const decoded = decodeEnvelopeShape(msg);
  if (!decoded.ok) return decoded;
  const envelope = decoded.envelope;
  if (!isMessageType(envelope.type)) return { ok: false, reason: `unknown message type ${envelope.type}` };
  const payload = messageSchemas[envelope.type].safeParse(envelope.payload);
  if (!payload.success)
    return { ok: false, reason: `invalid ${envelope.type} payload: ${summarize(payload.error.issues)}` };
  return { ok: true, envelope: { ...envelope, payload: payload.data } };
}

/**
 * Parses a delivery and validates the envelope only, leaving the payload unknown: a typed consumer
 * (`defineConsumer`) routes by type and parses the payload with its queue's catalogue schema itself.
 */
export function decodeEnvelopeShape(msg: Pick<ConsumeMessage, "content">): DecodeResult {
  let json: unknown;
  try {
    json = JSON.parse(msg.content.toString("utf8"));
  } catch {
    return { ok: false, reason: "body is not JSON" };
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: `invalid envelope: ${summarize(parsed.error.issues)}` };
  return { ok: true, envelope: parsed.data as Envelope };
}

export function summarize(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

/** The attempt this delivery is on: our header, 1 when absent or garbage. */
export function attemptOf(msg: Pick<ConsumeMessage, "properties">): number {
  const raw = msg.properties.headers?.[ATTEMPT_HEADER];
  const n = typeof raw === "number" ? raw : Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}
