import type { ProjectId } from "@emailsvc/contracts";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError, ErrorCode } from "./errors";

// Spec section 5.4, word for word.
export const MSG_INVALID_OR_MISSING_KEY = "Unauthorized: Invalid or missing API key";
export const MSG_INVALID_KEY_PREFIX = "Invalid API key prefix. Expected sk_proj_*, sk_live_* or sk_test_*.";

export const KEY_PREFIXES = ["sk_live_", "sk_proj_", "sk_test_"] as const;
export type KeyMode = "live" | "test";

/** What a valid key resolves to. The mode comes only from the key prefix (spec 5.3). */
export interface AuthContext {
  projectId: ProjectId;
  mode: KeyMode;
  keyId: string;
}

export type ApiKeyLookup = (plaintextKey: string) => Promise<{ projectId: ProjectId; keyId: string } | null>;

export function modeOfKey(key: string): KeyMode | null {
  if (key.startsWith("sk_test_")) return "test";
  if (key.startsWith("sk_live_") || key.startsWith("sk_proj_")) return "live";
  return null;
}

/** Extracts the Bearer token; anything else (no header, other scheme, empty token) counts as missing. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * API-key authentication per spec section 5, from the Authorization header: missing or unknown key → 401 with the
 * first message, a key whose prefix is none of the three → 401 with the prefix message (thrown as AppError).
 */
export async function authenticateKey(
  lookup: ApiKeyLookup,
  authorization: string | undefined,
): Promise<AuthContext> {
  const key = bearerToken(authorization);
  if (!key) throw new AppError(ErrorCode.UNAUTHORIZED, MSG_INVALID_OR_MISSING_KEY);
  const mode = modeOfKey(key);
  if (!mode) throw new AppError(ErrorCode.UNAUTHORIZED, MSG_INVALID_KEY_PREFIX);
  const found = await lookup(key);
  if (!found) throw new AppError(ErrorCode.UNAUTHORIZED, MSG_INVALID_OR_MISSING_KEY);
  return { projectId: found.projectId, keyId: found.keyId, mode };
}

/** `authenticateKey` as Express middleware: sets `res.locals.auth`. */
export function apiKeyAuth(lookup: ApiKeyLookup): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    authenticateKey(lookup, req.header("authorization")).then((auth) => {
      res.locals.auth = auth;
      next();
    }, next);
  };
}

export function getAuth(res: Response): AuthContext {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) throw new AppError(ErrorCode.UNAUTHORIZED, MSG_INVALID_OR_MISSING_KEY);
  return auth;
}
