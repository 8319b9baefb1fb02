import { z } from "zod";
import { isUuid } from "../ids";
import { SUBSCRIPTION_STATES, tagListSchema } from "./leads";

// Contact import jobs (spec 2 "Import job", 4.8 POST /trigger-job). The spec shows only `jobId`; the upload,
// options, preview and report are admin routes of ours, modelled on what listmonk, Plunk and useSend users ask for.

/** An import job's states. */
export const IMPORT_STATUSES = [
  "pending", // uploaded; options and mapping may still change; nothing is written until it is triggered
  "processing", // triggered: the scheduler reads it (or will, when a replica has room)
  "completed", // every row read: imported or listed in the error report
  "failed", // failure_reason says why (not CSV/XLSX, no email column, empty file, over the cap, unreadable)
  "cancelled", // by the user; rows committed before the cancel stay imported
] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
/** States a job never leaves. */
export const FINAL_IMPORT_STATUSES = ["completed", "failed", "cancelled"] as const;
export const isFinalImportStatus = (s: string): boolean =>
  (FINAL_IMPORT_STATUSES as readonly string[]).includes(s);

/**
 * What an import does with each row's lead: `upsert` creates new emails and updates known ones; `insert_only`
 * creates new emails and leaves known leads untouched (skip existing); `update_only` updates known leads and skips
 * emails the project does not have (overwrite only).
 */
export const IMPORT_MODES = ["upsert", "insert_only", "update_only"] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

export const IMPORT_LIMITS = {
  /** Default cap of an uploaded file (IMPORT_MAX_FILE_BYTES changes it). */
  maxFileBytes: 100 * 1024 * 1024,
  /** Rows a preview shows. */
  previewRows: 20,
  /** Columns of the header (Excel's own maximum is 16,384; real exports have a few hundred at most). */
  maxColumns: 1_000,
  /** Characters of one CSV row, quoted newlines included: a longer one fails the job (a 50 MB cell). */
  maxRowChars: 1024 * 1024,
  /** Characters of one cell kept in the error report. */
  reportCellChars: 1_000,
} as const;

/**
 * Where a column goes: a lead field, `name` (a full name split into first and last), `tags` (a list separated by
 * `,` `;` or `|`), `subscription` (subscribed / unsubscribed / unknown, and yes / no / true / false),
 * `unsubscribed` (the same question asked the other way round: yes means unsubscribed), `attribute:<name>` (a
 * custom attribute), or `ignore`.
 */
export const IMPORT_FIELD_TARGETS = [
  "email",
  "first_name",
  "last_name",
  "name",
  "phone",
  "tags",
  "subscription",
  "unsubscribed",
  "ignore",
] as const;
export type ImportFieldTarget = (typeof IMPORT_FIELD_TARGETS)[number];
export type ImportTarget = ImportFieldTarget | `attribute:${string}`;

const TARGETS = new Set<string>(IMPORT_FIELD_TARGETS);
export const importTargetSchema = z
  .string()
  .trim()
  .refine((t) => TARGETS.has(t) || /^attribute:.+/.test(t), {
    error: `must be one of ${IMPORT_FIELD_TARGETS.join(", ")} or attribute:<name>`,
  })
  .transform((t) => t as ImportTarget);

/** A column of the file and where it goes (the resolved mapping, one per header cell, in order). */
export interface ImportColumn {
  index: number;
  header: string;
  target: ImportTarget;
}

/** A character below U+0020 (tabs and newlines included): never part of a tag or a file name. */
export function hasControlCharacter(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x20) return true;
  return false;
}

const modeInput = z.preprocess(
  (v) => (typeof v === "string" ? v.trim().toLowerCase().replace(/-/g, "_") : v),
  z.enum(IMPORT_MODES, { error: `must be one of ${IMPORT_MODES.join(", ")}` }),
);

/**
 * Options of a pending job (admin PATCH …/imports/:jobId; all optional, the defaults below apply):
 * - `mode`: upsert (default), insert_only, update_only (`insert-only` is accepted too);
 * - `tags`: added to every imported lead, beside a tags column's;
 * - `segment_id`: a static segment every imported lead joins (null: none);
 * - `honor_subscription` (default true): a subscription column sets the lead's consent, so unsubscribed people
 *   are imported as unsubscribed; false ignores the column;
 * - `default_subscription` (default unknown): a new lead's consent when its row says nothing;
 * - `mapping`: header → target, overriding what the header's synonyms chose (a header missing from the file is
 *   refused).
 */
export const importOptionsSchema = z.strictObject({
  mode: modeInput.optional(),
  tags: tagListSchema()
    .refine((tags) => !tags.some(hasControlCharacter), { error: "must not hold control characters" })
    .optional(),
  segment_id: z.uuid({ error: "must be a segment UUID" }).nullable().optional(),
  honor_subscription: z.boolean({ error: "must be true or false" }).optional(),
  default_subscription: z
    .enum(SUBSCRIPTION_STATES, { error: `must be one of ${SUBSCRIPTION_STATES.join(", ")}` })
    .optional(),
  mapping: z
    .record(z.string(), importTargetSchema, { error: "must be an object of header → target" })
    .optional(),
});
export type ImportOptionsInput = z.output<typeof importOptionsSchema>;

/** The options a job runs with (the stored form: every default filled in). */
export interface ImportOptions {
  mode: ImportMode;
  tags: string[];
  segment_id: string | null;
  honor_subscription: boolean;
  default_subscription: (typeof SUBSCRIPTION_STATES)[number];
  /** the overrides as given (header → target); the resolved mapping is the job's `mapping` */
  mapping: Record<string, ImportTarget>;
}

export const DEFAULT_IMPORT_OPTIONS: ImportOptions = {
  mode: "upsert",
  tags: [],
  segment_id: null,
  honor_subscription: true,
  default_subscription: "unknown",
  mapping: {},
};

/** How the file is read, found at upload (and shown with the job). */
export interface ImportFileInfo {
  format: "csv" | "xlsx";
  /** CSV: utf-8, utf-16le, utf-16be or windows-1252 */
  encoding?: string;
  /** CSV: `,` `;` tab or `|` */
  delimiter?: string;
  /** XLSX: the worksheet read (the first one) */
  sheet?: string;
}

/** Spec 4.8's 400 texts for the body of POST /trigger-job. */
export const MSG_JOB_ID_REQUIRED = "jobId is required";
export const MSG_JOB_ID_MALFORMED = "jobId must be a UUID";

/** POST /trigger-job (spec 4.8): the body's `jobId`, or the 400 text when it is missing or not a UUID. */
export function triggerJobId(body: unknown): { jobId: string } | { error: string } {
  const v = body && typeof body === "object" ? (body as Record<string, unknown>).jobId : undefined;
  if (v === undefined || v === null || v === "") return { error: MSG_JOB_ID_REQUIRED };
  if (typeof v !== "string" || !isUuid(v)) return { error: MSG_JOB_ID_MALFORMED };
  return { jobId: v };
}
