import { loadEnv } from "@emailsvc/config";
import { z } from "zod";

const optionalUrl = z.preprocess((v) => (v === "" ? undefined : v), z.string().url().optional());
const optionalInt = z.preprocess(
  (v) => (v === "" ? undefined : v),
  z.coerce.number().int().min(0).optional(),
);

export const simulatorEnv = z.object({
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(4566),
  SIMULATOR_HOST: z.string().default("0.0.0.0"),
  /** How receivers reach the simulator (SigningCertURL base); default http://127.0.0.1:<port>. */
  SIMULATOR_PUBLIC_URL: optionalUrl,
  /** notification-ingest's SNS endpoint for Send/Delivery/Bounce/Complaint. */
  SIMULATOR_NOTIFICATION_URL: optionalUrl,
  /** inbound-mail's SNS endpoint for "Received" notifications. */
  SIMULATOR_INBOUND_URL: optionalUrl,
  SIMULATOR_LATENCY_MS: optionalInt,
  /** SendEmail calls per second before TooManyRequestsException; unset or 0 = unlimited. */
  SIMULATOR_MAX_SEND_RATE: optionalInt,
  /** s3rver endpoint for injected inbound MIME; without it inbound MIME is inlined (SES SNS action). */
  SIMULATOR_S3_ENDPOINT: optionalUrl,
  SIMULATOR_S3_BUCKET: z.string().min(3).default("emailsvc-inbound"),
  /** The latest messages kept for /_sim/messages (counts stay exact); default 20,000. */
  SIMULATOR_MAX_MESSAGES: optionalInt,
  SIMULATOR_ENFORCE_VERIFIED_SENDERS: z
    .enum(["true", "false", "1", "0", ""])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  AWS_REGION: z.string().default("us-east-1"),
  LOG_LEVEL: z.string().default("info"),
});

export type SimulatorEnv = z.output<typeof simulatorEnv>;

export function readEnv(source: Record<string, string | undefined> = process.env): SimulatorEnv {
  return loadEnv("provider-simulator", simulatorEnv, source);
}
