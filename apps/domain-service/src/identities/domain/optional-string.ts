import { AppError, ErrorCode } from "@emailsvc/contracts";

/** An optional string field of a request body: absent or null → null; any other type → 400 naming the field. */
export function optionalString(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new AppError(ErrorCode.VALIDATION, `${field} must be a string`);
  return value.trim() || null;
}
