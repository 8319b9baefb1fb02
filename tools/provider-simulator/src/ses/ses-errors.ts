import { randomUUID } from "node:crypto";
import type { Response } from "express";

/**
 * Answers the way SES v2 (restJson1) does, so the SDK raises the named exception class:
 * the error name travels in `x-amzn-ErrorType`, the text in the JSON body's `message`.
 */
export function sendSesError(res: Response, status: number, errorType: string, message: string): void {
  res
    .status(status)
    .set("x-amzn-ErrorType", errorType)
    .set("x-amzn-RequestId", randomUUID())
    .type("application/json")
    .send(JSON.stringify({ message }));
}

export function sendSesOk(res: Response, body: unknown, status = 200): void {
  res
    .status(status)
    .set("x-amzn-RequestId", randomUUID())
    .type("application/json")
    .send(JSON.stringify(body));
}

/** Thrown inside SES handlers; the router turns it into `sendSesError`. */
export class SesError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new SesError(400, "BadRequestException", message);
export const notFound = (message: string) => new SesError(404, "NotFoundException", message);
