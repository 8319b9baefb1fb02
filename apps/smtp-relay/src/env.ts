import { z } from "zod";
import { envBool, loadEnv, providerEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3010)
  // S3 for the attachments (ATTACHMENTS_BUCKET), read back by the send-worker.
  .extend(providerEnv.shape)
  .extend({
    /** Where attachment bytes go before the accept statement; the send-worker's ATTACHMENTS_BUCKET. */
    ATTACHMENTS_BUCKET: z.string().min(3).default("attachments"),
    /** The address the SMTP listeners bind (the HTTP port's is HOST). */
    SMTP_HOST: z.string().default("0.0.0.0"),
    /** Submission with STARTTLS (RFC 6409): 587 in production, a high port locally. */
    SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
    /** Submission over implicit TLS (RFC 8314): 465. 0: off. Only with a certificate. */
    SMTP_TLS_PORT: z.coerce.number().int().min(0).max(65535).default(465),
    /** The server's certificate chain and key: PEM text, or the path of a PEM file (a mounted Secret). */
    SMTP_TLS_CERT: z.string().optional(),
    SMTP_TLS_KEY: z.string().optional(),
    /**
     * Development only: AUTH without TLS from a loopback client (a local stack without a certificate). Never over
     * the network, and refused with NODE_ENV=production.
     */
    SMTP_ALLOW_INSECURE_AUTH: envBool,
    /** The name in the greeting and the EHLO answer. */
    SMTP_SERVER_NAME: z.string().default("smtp-relay"),
    /**
     * Announced in EHLO SIZE. Spec 8 allows 10 MB of attachments, which base64 makes 13.7 MB, plus the body: 14 MB.
     */
    SMTP_MAX_MESSAGE_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(14 * 1024 * 1024),
    /** Spec 8: at most 50 recipients a message, To, Cc and Bcc together; the excess is refused per RCPT. */
    SMTP_MAX_RECIPIENTS: z.coerce.number().int().positive().default(50),
    /** Connections at once from one IP address, and in all. */
    SMTP_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().positive().default(20),
    SMTP_MAX_CLIENTS: z.coerce.number().int().positive().default(500),
    /** A connection idle this long is closed (smtp-server's socket timeout). */
    SMTP_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
    /** A connection open this long is closed whatever it does, so a slow client cannot hold a slot for ever. */
    SMTP_MAX_CONNECTION_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(10 * 60_000),
    /** Failed AUTH attempts allowed per IP, and per (username, password), in AUTH_WINDOW before AUTH answers 454. */
    SMTP_AUTH_MAX_FAILURES: z.coerce.number().int().positive().default(10),
    SMTP_AUTH_WINDOW_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
  });
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv(
    "smtp-relay",
    envSchema
      .refine((e) => !(e.SMTP_ALLOW_INSECURE_AUTH && e.NODE_ENV === "production"), {
        path: ["SMTP_ALLOW_INSECURE_AUTH"],
        message: "AUTH without TLS is for local development only",
      })
      .refine((e) => Boolean(e.SMTP_TLS_CERT) === Boolean(e.SMTP_TLS_KEY), {
        path: ["SMTP_TLS_KEY"],
        message: "SMTP_TLS_CERT and SMTP_TLS_KEY go together",
      }),
    source,
  );
}
