/** The pseudo-queue for RabbitMQ direct reply-to: replies go straight to the calling channel, no queue. */
export const DIRECT_REPLY_TO = "amq.rabbitmq.reply-to";

/** Body of an RPC reply: the handler's return value, or the error it threw. */
export type RpcReply<R = unknown> =
  { ok: true; payload: R } | { ok: false; error: { name: string; message: string } };

export function encodeReply(reply: RpcReply): Buffer {
  return Buffer.from(JSON.stringify(reply));
}

export function decodeReply(content: Buffer): RpcReply {
  const parsed = JSON.parse(content.toString("utf8")) as Partial<RpcReply> | null;
  if (parsed && parsed.ok === true) return { ok: true, payload: (parsed as { payload: unknown }).payload };
  const error = (parsed as { error?: { name?: unknown; message?: unknown } } | null)?.error;
  return {
    ok: false,
    error: { name: String(error?.name ?? "Error"), message: String(error?.message ?? "malformed RPC reply") },
  };
}
