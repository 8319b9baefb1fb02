import type { RequestHandler, Response } from "express";
import { MSG_IN_FLIGHT, MSG_KEY_REUSED } from "@emailsvc/contracts";
import { getAuth } from "../auth";
import { AppError, ErrorCode } from "../errors";
import type { Logger } from "@emailsvc/observability";
import { requestFingerprintAsync } from "./fingerprint";
import type { IdempotencyStore, StoredResponse } from "./idempotency-store";

/** Spec 8: `Idempotency-Key` length limit. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;
export const REPLAYED_HEADER = "Idempotency-Replayed";

export const MSG_KEY_TWICE = "Idempotency-Key must be given once";

/**
 * Characters of a header value as the client wrote it: Node hands header bytes over one Latin-1 character per
 * byte, so a UTF-8 key would count its multi-byte characters two to four times.
 */
function characters(value: string): number {
  return [...Buffer.from(value, "latin1").toString("utf8")].length;
}

/** What the accept transaction needs for the database backstop (unique (project_id, key) row). */
export interface IdempotencyContext {
  key: string;
  fingerprint: string;
}

export function idempotencyOf(res: Response): IdempotencyContext | undefined {
  return res.locals.idempotency as IdempotencyContext | undefined;
}

/** Sends a stored first response again, marked as a replay (used by the cache and by the DB backstop). */
export function sendReplay(res: Response, response: StoredResponse): void {
  res.setHeader(REPLAYED_HEADER, "true");
  res.status(response.status).json(response.body);
}

/**
 * Idempotency for the v1 send endpoints (spec 5), reusable by any Bearer route: mount after apiKeyAuth and the
 * JSON parser. With the header, an identical repeat within 24 h gets the first 2xx answer replayed; a repeat
 * while the first is still running gets 409; the same key with another body gets 422. Only 2xx answers are
 * cached (the cache entry is written before the response leaves, so a client's immediate retry always sees
 * it); any other answer releases the key. When the cache is unreachable the request goes through, and the
 * `IdempotencyContext` left in `res.locals` lets the accept transaction's unique row stop a duplicate.
 */
export function idempotency(deps: { store: IdempotencyStore; logger: Logger }): RequestHandler {
  return (req, res, next) => {
    const given = req.headersDistinct["idempotency-key"];
    if (given === undefined) return next();
    // Two headers would otherwise be joined into one key ("a, b").
    if (given.length !== 1) return next(new AppError(ErrorCode.VALIDATION, MSG_KEY_TWICE));
    const key = given[0]!;
    if (key.length === 0 || characters(key) > MAX_IDEMPOTENCY_KEY_LENGTH) {
      return next(
        new AppError(
          ErrorCode.VALIDATION,
          `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
        ),
      );
    }
    const { projectId, mode } = getAuth(res);
    // Fingerprinting yields to the event loop between slices: a full batch body takes tens of milliseconds.
    // The path as routed: Express sends /v1/send-email/ and /V1/Send-Email to the same handler as /v1/send-email.
    const path = `${req.baseUrl}${req.path}`.replace(/\/+$/, "").toLowerCase() || "/";
    requestFingerprintAsync(req.method, path, mode, req.body)
      .then(async (fingerprint) => {
        const ctx: IdempotencyContext = { key, fingerprint };
        res.locals.idempotency = ctx;
        return { fingerprint, found: await deps.store.begin(projectId, key, fingerprint) };
      })
      .then(
        ({ fingerprint, found }) => {
          switch (found.kind) {
            case "unavailable":
              deps.logger.warn(
                { path: req.path },
                "idempotency cache unavailable; relying on the database backstop",
              );
              return next();
            case "in_flight":
              return next(new AppError(ErrorCode.CONFLICT, MSG_IN_FLIGHT));
            case "mismatch":
              return next(new AppError(ErrorCode.IDEMPOTENCY_KEY_REUSED, MSG_KEY_REUSED));
            case "replay":
              return sendReplay(res, found.response);
            case "started": {
              let settled = false;
              const json = res.json.bind(res);
              res.json = (body: unknown) => {
                if (settled) return json(body);
                settled = true;
                const status = res.statusCode;
                const done =
                  status >= 200 && status < 300
                    ? deps.store.complete(projectId, key, found.token, fingerprint, { status, body })
                    : deps.store.release(projectId, key, found.token);
                void done.finally(() => json(body));
                return res;
              };
              // A client that hangs up before we answer must not leave the key "in flight" for 24 hours.
              res.on("close", () => {
                if (!settled) {
                  settled = true;
                  void deps.store.release(projectId, key, found.token);
                }
              });
              return next();
            }
          }
        },
        (err: unknown) => next(err),
      );
  };
}
