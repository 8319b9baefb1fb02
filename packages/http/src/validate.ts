import type { z } from "zod";
import { AppError, ErrorCode } from "./errors";

/** Formats the first zod issue as a short client message: `field: problem`. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "Invalid request";
  const path = issue.path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Parses input at the edge; throws a 400 AppError with a readable message instead of a ZodError. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new AppError(ErrorCode.VALIDATION, describeZodError(result.error));
  return result.data;
}
