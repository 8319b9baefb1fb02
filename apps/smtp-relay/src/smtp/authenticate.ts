import { findApiKey } from "@emailsvc/db";
import type { Deps } from "../deps";
import type { RelayAuth } from "../relay/accept-smtp-message";
import type { AuthThrottle } from "./auth-throttle";
import { type SmtpError, smtpError } from "./smtp-errors";

/** What onAuth needs to know about the connection. */
export interface AuthAttempt {
  /** Free text (`apikey` by convention); throttled together with the password, never alone. */
  username: string | null | undefined;
  password: string | null | undefined;
  /** The client's address (throttling, the loopback rule). */
  ip: string;
  /** Whether the connection is under TLS (implicit, or after STARTTLS). */
  secure: boolean;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
/** Our keys are `sk_live_`/`sk_test_` plus 64 hex characters; anything much longer is not one. */
const MAX_PASSWORD = 256;

/**
 * AUTH PLAIN / LOGIN: the username is free (clients send `apikey`, or anything), the password is a project's API
 * key, looked up by its hash as the HTTP API does; its mode (live/test) decides test sends. Refused without TLS
 * (530 5.7.0) unless SMTP_ALLOW_INSECURE_AUTH and the client is on loopback (a local stack). A database that does
 * not answer is a temporary 454 4.7.0, never a 535 the client would take as a wrong password. The key is never
 * logged: a failure logs the client's address only.
 */
export async function authenticate(
  deps: Pick<Deps, "db" | "logger" | "env">,
  throttle: AuthThrottle,
  attempt: AuthAttempt,
): Promise<{ ok: true; auth: RelayAuth } | { ok: false; error: SmtpError }> {
  if (!attempt.secure && !(deps.env.SMTP_ALLOW_INSECURE_AUTH && LOOPBACK.test(attempt.ip)))
    return { ok: false, error: smtpError(530, "5.7.0 Must issue a STARTTLS command first") };
  const password = attempt.password ?? "";
  // bounded, so a huge AUTH argument costs no more to hash than a key
  const throttleKey = {
    ip: attempt.ip,
    username: (attempt.username ?? "").slice(0, 256),
    password: password.slice(0, MAX_PASSWORD + 1),
  };
  if (throttle.blocked(throttleKey))
    return {
      ok: false,
      error: smtpError(454, "4.7.0 Too many failed authentication attempts; try again later"),
    };
  let key: Awaited<ReturnType<typeof findApiKey>> = null;
  if (password.length > 0 && password.length <= MAX_PASSWORD) {
    try {
      key = await findApiKey(deps.db, password);
    } catch (err) {
      deps.logger.error({ err }, "smtp auth: API key lookup failed");
      return { ok: false, error: smtpError(454, "4.7.0 Temporary authentication failure; try again later") };
    }
  }
  if (!key) {
    throttle.failed(throttleKey);
    // the username is logged (it names the client's configuration), the password never
    deps.logger.warn(
      { ip: attempt.ip, username: throttleKey.username.slice(0, 64) },
      "smtp auth: invalid API key",
    );
    return {
      ok: false,
      error: smtpError(535, "5.7.8 Authentication credentials invalid: the password must be an API key"),
    };
  }
  return { ok: true, auth: { projectId: key.projectId, mode: key.mode } };
}
