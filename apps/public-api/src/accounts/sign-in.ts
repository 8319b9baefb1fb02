import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { findUserByEmail, insertSession, type UserRow } from "./accounts.repo";
import { sessionIdOf } from "./admin-access";
import { UNKNOWN_USER_HASH, verifyPassword } from "./password";

export const MSG_WRONG_CREDENTIALS = "Wrong email or password";
export const MSG_TOO_MANY_SIGN_INS = "Too many failed sign-ins; try again in a few minutes";

export interface SignInConfig {
  /** failed sign-ins per account and per address within `windowMs`, then 429 until the window ends */
  perAccount: number;
  perAddress: number;
  windowMs: number;
  /** the session's absolute lifetime */
  maxAgeMs: number;
}

export interface SignInDeps {
  db: Db;
  redis: Pick<Redis, "eval" | "get" | "del">;
  config: SignInConfig;
}

const COUNT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

export type SignInResult =
  | { kind: "signed-in"; user: UserRow; token: string; csrfToken: string; expiresAt: Date }
  | { kind: "refused"; reason: "credentials" | "throttled" };

/**
 * Email and password → a new session (a fresh token at every sign-in: a session id fixed before it is never
 * carried over). The answer never says whether the email exists: an unknown one is refused in the same words and
 * after the same scrypt work as a wrong password, and both count against the account's and the address's budget.
 * With Redis down the throttle fails open; scrypt's cost still bounds guessing.
 */
export async function signIn(
  deps: SignInDeps,
  input: { email: string; password: string; ip: string; userAgent: string | null },
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const accountKey = `signin:acct:${email}`;
  const addressKey = `signin:addr:${input.ip}`;
  const counts = await Promise.all([deps.redis.get(accountKey), deps.redis.get(addressKey)]).catch(() => [
    null,
    null,
  ]);
  if (Number(counts[0] ?? 0) >= deps.config.perAccount || Number(counts[1] ?? 0) >= deps.config.perAddress)
    return { kind: "refused", reason: "throttled" };

  const user = await findUserByEmail(deps.db, email);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? UNKNOWN_USER_HASH);
  if (!user || !ok || user.disabled) {
    await Promise.all([
      deps.redis.eval(COUNT, 1, accountKey, deps.config.windowMs),
      deps.redis.eval(COUNT, 1, addressKey, deps.config.windowMs),
    ]).catch(() => undefined);
    return { kind: "refused", reason: "credentials" };
  }
  await deps.redis.del(accountKey).catch(() => undefined);
  return { kind: "signed-in", user, ...(await startSession(deps, user, input)) };
}

/** A new session for the user (sign-in, an accepted invitation): a fresh token and CSRF token, stored hashed. */
export async function startSession(
  deps: { db: Db; config: Pick<SignInConfig, "maxAgeMs"> },
  user: Pick<UserRow, "id">,
  client: { ip: string; userAgent: string | null },
): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + deps.config.maxAgeMs);
  await insertSession(deps.db, {
    id: sessionIdOf(token),
    userId: user.id,
    csrfToken,
    expiresAt,
    ip: client.ip,
    userAgent: client.userAgent,
  });
  return { token, csrfToken, expiresAt };
}

/** The refusal as the admin API answers it. */
export function signInRefusal(reason: "credentials" | "throttled"): AppError {
  return reason === "throttled"
    ? new AppError(ErrorCode.RATE_LIMITED, MSG_TOO_MANY_SIGN_INS)
    : new AppError(ErrorCode.UNAUTHORIZED, MSG_WRONG_CREDENTIALS);
}
