/**
 * Bad input for a route, derived from its OpenAPI operation (the document the service serves): a plausible value
 * for every schema, then that value with one field at a time replaced by each of BAD_VALUES, dropped, or its body
 * replaced whole. Deterministic, so a failure names its case and runs again the same way. Tests send every case and
 * expect an answer below 500: each input a client can send has a defined answer.
 */

/** The JSON Schema subset the OpenAPI builder emits (zod's JSON Schema). */
export type Schema = {
  type?: string | string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minLength?: number;
  minimum?: number;
  default?: unknown;
  [k: string]: unknown;
};

/** What a client may put where a field goes: each type but the right one, edges of each, and hostile text. */
export const BAD_VALUES: readonly unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  -Number.MAX_SAFE_INTEGER - 2, // past what a JS number holds exactly
  true,
  "",
  " ",
  "\u0000",
  "x".repeat(70_000),
  "😀\ud800",
  "<script>alert(1)</script>",
  "'; DROP TABLE leads; --",
  "2026-02-30T25:61:00Z",
  "not-a-uuid",
  "00000000-0000-0000-0000-000000000000",
  "a@b",
  [],
  [null],
  ["x".repeat(300)],
  {},
  { $gt: "" },
  // own "__proto__" and "constructor" keys, as JSON.parse makes them (an object literal would set the prototype)
  JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
  Array.from({ length: 2_000 }, (_, i) => i),
];

/** Path segments a client may send (raw, already percent-encoded where it says so). */
export const BAD_PATH_SEGMENTS: readonly string[] = [
  "not-a-uuid",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "0",
  "-1",
  "%00",
  "%E0%A4%A", // malformed percent-encoding
  "%F0%9F%98%80",
  "a%40b.com",
  "..%2F..%2Fetc%2Fpasswd",
  "x".repeat(3_000),
  "%20",
  "null",
];

/** Authorization headers a client may send instead of `Bearer <its key>` ("" leaves the header out). */
export const MALFORMED_AUTH: readonly string[] = [
  "",
  "Bearer",
  "Bearer ",
  "Basic eDp5",
  `Bearer sk_live_${"x".repeat(5_000)}`,
  `Bearer sk_test_${"x".repeat(5_000)}`,
  "Bearer sk_live_\u00ff",
  "Bearer sk_other_0123456789",
  `Bearer sk_live_${"0".repeat(48)}`,
];

/** Query values a client may send, one parameter at a time (and repeated, which arrives as an array). */
export const BAD_QUERY_VALUES: readonly string[] = [
  "",
  "-1",
  "0",
  "1e400",
  "99999999999999999999999",
  "abc",
  "%00",
  "%E0%A4%A",
  "2026-13-45",
  "x".repeat(3_000),
  "true",
];

const pick = (s: Schema): Schema => {
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return pick(alt.find((a) => a.type !== "null") ?? alt[0]!);
  if (s.allOf?.length) return Object.assign({}, ...s.allOf.map(pick)) as Schema;
  return s;
};

/** A plausible value for `schema`: required and optional properties, the first enum member, formats honoured. */
export function sample(schema: Schema, depth = 0): unknown {
  const s = pick(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = sample(v, depth + 1);
      return out;
    }
    case "array":
      return depth > 4 || !s.items
        ? []
        : Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items!, depth + 1));
    case "integer":
    case "number":
      return Math.max(1, typeof s.minimum === "number" ? s.minimum : 1);
    case "boolean":
      return true;
    case "string":
      switch (s.format) {
        case "email":
          return "fuzz@example.com";
        case "uuid":
          return "0190a0a0-0000-7000-8000-000000000001";
        case "date-time":
          return "2030-01-01T10:00:00Z";
        case "uri":
          return "https://example.com/x";
        default:
          return "x".repeat(Math.max(1, s.minLength ?? 1));
      }
    default:
      return "x";
  }
}

export interface BodyCase {
  label: string;
  /** A JSON value to send, or `raw` text with its own content type. */
  json?: unknown;
  raw?: { text: string | Buffer; contentType: string };
}

/** Whole-body oddities every JSON route must refuse cleanly. */
export const RAW_BODIES: readonly BodyCase[] = [
  { label: "empty body", raw: { text: "", contentType: "application/json" } },
  { label: "not JSON", raw: { text: "not json", contentType: "application/json" } },
  { label: "truncated JSON", raw: { text: '{"a": ', contentType: "application/json" } },
  { label: "JSON null", raw: { text: "null", contentType: "application/json" } },
  { label: "JSON string", raw: { text: '"x"', contentType: "application/json" } },
  { label: "JSON number", raw: { text: "123", contentType: "application/json" } },
  { label: "JSON array", raw: { text: "[]", contentType: "application/json" } },
  {
    label: "deep nesting",
    raw: { text: "[".repeat(5_000) + "]".repeat(5_000), contentType: "application/json" },
  },
  {
    label: "invalid UTF-8",
    raw: {
      text: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      contentType: "application/json",
    },
  },
  { label: "declared UTF-16", raw: { text: '{"a":1}', contentType: "application/json; charset=utf-16" } },
  { label: "form encoded", raw: { text: "a=1&b=2", contentType: "application/x-www-form-urlencoded" } },
  { label: "plain text", raw: { text: '{"a":1}', contentType: "text/plain" } },
  { label: "multipart without boundary", raw: { text: "--x\r\n\r\n", contentType: "multipart/form-data" } },
  {
    label: "duplicate keys",
    raw: { text: '{"email":"a@example.com","email":{"x":1}}', contentType: "application/json" },
  },
];

/**
 * The body cases of an operation's JSON schema: the plausible body, then per property (top level and one level
 * down) each BAD_VALUES member in its place and the property left out, then the whole body as each BAD_VALUES member.
 * `base` replaces the sampled plausible body: a valid one (a real domain, an address on it) takes each bad field
 * past the other fields' checks to its own.
 */
export function bodyCases(schema: Schema, base: unknown = sample(schema)): BodyCase[] {
  const cases: BodyCase[] = [{ label: "plausible body", json: base }];
  const fields = (obj: unknown, prefix: string[]): string[][] => {
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) return [];
    const out: string[][] = [];
    for (const [k, v] of Object.entries(obj)) {
      out.push([...prefix, k]);
      if (prefix.length === 0) {
        if (Array.isArray(v) && v[0] && typeof v[0] === "object") out.push(...fields(v[0], [k, "0"]));
        else out.push(...fields(v, [k]));
      }
    }
    return out;
  };
  const withValue = (p: string[], value: unknown, drop = false): unknown => {
    const copy = structuredClone(base) as Record<string, unknown>;
    let at: Record<string, unknown> = copy;
    for (const k of p.slice(0, -1)) at = at[k] as Record<string, unknown>;
    if (drop) delete at[p.at(-1)!];
    else at[p.at(-1)!] = value;
    return copy;
  };
  for (const p of fields(base, [])) {
    cases.push({ label: `${p.join(".")} left out`, json: withValue(p, undefined, true) });
    BAD_VALUES.forEach((v, i) =>
      cases.push({ label: `${p.join(".")} = BAD_VALUES[${i}]`, json: withValue(p, v) }),
    );
  }
  BAD_VALUES.forEach((v, i) => cases.push({ label: `body = BAD_VALUES[${i}]`, json: v }));
  return cases;
}

/** One operation of an OpenAPI document, as the fuzz tests send it. */
export interface FuzzOp {
  method: string;
  /** The document's path, `{param}` style. */
  path: string;
  /** The request body's schema: the JSON one, else the first the operation documents (SNS posts text/plain). */
  body?: Schema;
  /** The media type `body` was documented under. */
  contentType?: string;
  /** The names of its query parameters (the path item's and its own). */
  query: string[];
}

type OpenApiParameter = { name: string; in: string };
type OpenApiOperation = {
  "x-service"?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};

/** The operations of an OpenAPI document (e.g. `publicOpenApi()`) that `keep` keeps. */
export function operationsOf(doc: unknown, keep: (path: string, op: OpenApiOperation) => boolean): FuzzOp[] {
  const ops: FuzzOp[] = [];
  const paths = (doc as { paths: Record<string, Record<string, unknown>> }).paths;
  for (const [path, item] of Object.entries(paths)) {
    const shared = (item.parameters as OpenApiParameter[] | undefined) ?? [];
    for (const [method, value] of Object.entries(item)) {
      if (method === "parameters") continue;
      const op = value as OpenApiOperation;
      if (!keep(path, op)) continue;
      const content = op.requestBody?.content ?? {};
      const contentType = content["application/json"] ? "application/json" : Object.keys(content)[0];
      const body = contentType ? content[contentType]?.schema : undefined;
      ops.push({
        method,
        path,
        ...(body ? { body, contentType: contentType! } : {}),
        query: [...shared, ...(op.parameters ?? [])].filter((x) => x.in === "query").map((x) => x.name),
      });
    }
  }
  return ops;
}

/** A case that got a wrong answer: what was sent, the status (-1: the request itself failed) and what came back. */
export interface FuzzFailure {
  request: string;
  status: number;
  body: unknown;
}

/** What the fuzz tests read of an answer (a supertest response has it). */
export interface FuzzAnswer {
  status: number;
  body?: unknown;
  text?: string;
}

/** The text a body case sends: its raw text, or its JSON. */
export const caseText = (c: BodyCase): string =>
  c.raw ? (c.raw.text as string) : (JSON.stringify(c.json) ?? "");

/** The Content-Type a body case is sent with: its raw one, or `json` for a JSON case. */
export const caseContentType = (c: BodyCase, json = "application/json"): string =>
  c.raw ? c.raw.contentType : json;

/**
 * The common rule: an answer of 500 or more is wrong, and so is a 4xx without a JSON `error` string, except a 404
 * when `allow404` (the router's own, for a path no route matches). Null when the answer is fine.
 */
export function jsonAnswerProblem(res: FuzzAnswer, opts: { allow404?: boolean } = {}): string | null {
  if (res.status >= 500) return `answered ${res.status}`;
  if (res.status < 400 || (opts.allow404 && res.status === 404)) return null;
  const error = (res.body as { error?: unknown } | undefined)?.error;
  return typeof error === "string" && error.length > 0 ? null : `a ${res.status} without an error`;
}

/**
 * Awaits one case's answer and records a failure under `label` when the request throws or `problem` names one.
 * The answer, or null when the request threw.
 */
export async function judgeCase<R extends FuzzAnswer>(
  label: string,
  answer: PromiseLike<R>,
  problem: (res: R) => string | null,
  failures: FuzzFailure[],
): Promise<R | null> {
  let res: R;
  try {
    res = await answer;
  } catch (err) {
    failures.push({ request: label, status: -1, body: String(err) });
    return null;
  }
  const why = problem(res);
  if (why) {
    const body =
      res.body && typeof res.body === "object" && Object.keys(res.body).length ? res.body : undefined;
    failures.push({ request: `${label}: ${why}`, status: res.status, body: body ?? res.text?.slice(0, 300) });
  }
  return res;
}
