import pino, { type Logger, type LoggerOptions } from "pino";
import { currentContext } from "./context";

export type { Logger } from "pino";

/** Anything shaped like one of our API keys is scrubbed from log messages, wherever it appears. */
const API_KEY_PATTERN = /sk_(live|test|proj)_[A-Za-z0-9]+/g;

export function redactSecrets(text: string): string {
  return text.replace(API_KEY_PATTERN, (m) => `${m.slice(0, 8)}[redacted]`);
}

const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-admin-token"]',
  'req.headers["x-internal-token"]',
  "headers.authorization",
  "authorization",
  "apiKey",
  "api_key",
  "*.apiKey",
  "*.api_key",
  "*.liveKey",
  "*.testKey",
  "*.live_key",
  "*.test_key",
  "*.password",
  "*.secret",
  "*.token",
];

export interface LoggerConfig {
  service: string;
  level?: string;
  /** Extra pino options (tests use a destination stream). */
  options?: LoggerOptions;
  destination?: pino.DestinationStream;
}

/**
 * JSON logs (one object per line) with the service name, the current request/correlation id and API keys
 * redacted both by field path and by pattern inside messages.
 */
export function createLogger(cfg: LoggerConfig): Logger {
  const options: LoggerOptions = {
    level: cfg.level ?? "info",
    base: { service: cfg.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const ctx = currentContext();
      return ctx ? { requestId: ctx.requestId, correlationId: ctx.correlationId } : {};
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === "string" ? redactSecrets(a) : a));
        return method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
    ...cfg.options,
  };
  // Asynchronous stdout: lines written while a write is in flight go out together in one syscall, so a busy
  // service does not pay one write per log line on its event loop. pino flushes it on exit.
  return pino(options, cfg.destination ?? pino.destination({ dest: 1, sync: false }));
}
