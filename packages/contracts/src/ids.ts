/** A UUID in its canonical text form (any version; PostgreSQL's `uuid` parses exactly these, case-insensitively). */
export const UUID_SOURCE = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const UUID_RE = new RegExp(`^${UUID_SOURCE}$`, "i");

/** Whether `value` is a UUID: checked before a query, so an id from a URL never makes PostgreSQL raise. */
export const isUuid = (value: unknown): value is string => typeof value === "string" && UUID_RE.test(value);
