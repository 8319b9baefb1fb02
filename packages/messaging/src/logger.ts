/** The slice of a pino logger messaging needs; a pino `Logger` from @emailsvc/observability fits it. */
export interface MessagingLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const noop = (): void => undefined;
export const silentLogger: MessagingLogger = { debug: noop, info: noop, warn: noop, error: noop };

export function errorFields(err: unknown): { err: { name: string; message: string } } {
  return err instanceof Error
    ? { err: { name: err.name, message: err.message } }
    : { err: { name: "NonError", message: String(err) } };
}
