/**
 * Errors that say the database (or S3) is unreachable for now rather than that the job is wrong: a restart
 * (57P01 admin shutdown, 57P02 crash shutdown, 57P03 starting up), a lost or refused connection (class 08, socket
 * errors), too many connections. The job stays `processing` and is resumed from its checkpoint.
 */
export function isTransientDbError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  const code = e?.code ?? "";
  if (code.startsWith("08") || ["57P01", "57P02", "57P03", "53300", "53400"].includes(code)) return true;
  if (["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH"].includes(code))
    return true;
  const message = e?.message ?? "";
  return /Connection terminated|connection error|Client has encountered a connection error|socket hang up|timeout exceeded when trying to connect/i.test(
    message,
  );
}
