import { type ImportMode, LEAD_LIMITS, type SubscriptionState, type ProjectId } from "@emailsvc/contracts";
import type { PoolClient } from "pg";
import { BinaryArrayWriter, OID, timeOrderedUuidBytes } from "./binary-array";

/** One row of an import as the lead it becomes (empty cells absent: they never blank a known lead's value). */
export interface ImportLead {
  line: number;
  email: string;
  /** normalised email: the lead's identity in its project */
  norm: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  /** custom attributes as JSON object text, merged into a known lead's ("{}": none) */
  attributes: string;
  /** added to a known lead's */
  tags: string[];
  /** consent the row states, or null */
  subscription: SubscriptionState | null;
}

/** A row that is not imported, with why and its cells (the error report). */
export interface RejectedImportRow {
  line: number;
  reason: string;
  cells: string[];
}

/** What a job does with its leads (the job's options). */
export interface ImportChunkSettings {
  mode: ImportMode;
  /** a new lead's consent when its row states none */
  defaultSubscription: SubscriptionState;
  /** static segment every imported lead joins */
  segmentId: string | null;
}

/**
 * A chunk's leads as the statement's parameters (encodeImportLeads): one binary array per column, in email order.
 * Encoding as soon as a chunk is full lets its lead objects die young, instead of living (and being promoted to
 * V8's old generation) until the chunk has committed.
 */
export interface EncodedImportLeads {
  count: number;
  columns: Buffer[];
}

export interface ImportChunk {
  /** The job's checkpoint this chunk continues from (rows consumed before it). */
  from: number;
  /** Rows this chunk consumes: its leads and its rejected rows. */
  rows: number;
  leads: EncodedImportLeads;
  /** Rows refused before the database: invalid ones and duplicates of an earlier row. */
  rejected: RejectedImportRow[];
  duplicates: number;
  invalid: number;
  /** The cells of a lead's row, for the report when the database refuses it (the limits of a merged lead). */
  cellsOf(line: number): string[];
}

export type ChunkOutcome =
  | {
      committed: true;
      created: number;
      updated: number;
      skipped: number;
      suppressed: number;
      refused: number;
    }
  /** The job left `processing` (cancelled), or waiting for the chunk before was given up: nothing written. */
  | { committed: false };

const REFUSED_REASON = `the lead would then hold more than ${LEAD_LIMITS.attributeKeys} attributes, ${LEAD_LIMITS.attributesBytes / 1024} KB of attributes or ${LEAD_LIMITS.tags} tags`;

// Tags travel as one text per lead joined by the unit separator (tags hold no control characters): unnest cannot
// take an array of arrays of different lengths.
const TAG_SEPARATOR = "\u001f";
const TAGS = "string_to_array(i.tags, chr(31))";
const MERGED_TAGS = `COALESCE(l.tags, '{}') || ARRAY(SELECT t FROM unnest(${TAGS}) t WHERE NOT t = ANY(COALESCE(l.tags, '{}')))`;
const NO_MARKETING = "i.supp IN ('unsubscribed', 'complaint')";
/**
 * A known lead's consent after the row: a stated unsubscribe always applies; a stated subscribe never undoes an
 * unsubscribe (the lead's, or an unsubscribe or complaint on the suppression list); unknown changes nothing.
 */
const NEXT_SUB = `CASE WHEN i.sub = 'unsubscribed' THEN 'unsubscribed'
  WHEN i.sub = 'subscribed' AND l.subscription <> 'unsubscribed' AND NOT COALESCE(${NO_MARKETING}, false) THEN 'subscribed'
  ELSE l.subscription END`;
/** A new lead's consent: unsubscribed when the list says so, else what the row states, else the job's default. */
const NEW_SUB = `CASE WHEN COALESCE(${NO_MARKETING}, false) THEN 'unsubscribed' ELSE COALESCE(i.sub, $3::text) END`;

const INPUT = `input AS (
  SELECT t.*,
         (SELECT s.reason FROM suppressions s WHERE s.project_id = $1 AND s.email = t.norm) AS supp,
         EXISTS (SELECT 1 FROM leads x WHERE x.project_id = $1 AND x.email_normalized = t.norm) AS existing
    FROM unnest($5::int[], $6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::jsonb[],
                $13::text[], $14::text[])
      AS t(line, id, email, norm, first_name, last_name, phone, attrs, tags, sub)
)`;

const UPDATE = `upd AS (
  UPDATE leads l SET
    first_name = COALESCE(i.first_name, l.first_name),
    last_name = COALESCE(i.last_name, l.last_name),
    phone = COALESCE(i.phone, l.phone),
    attributes = CASE WHEN i.attrs = '{}'::jsonb THEN l.attributes ELSE l.attributes || i.attrs END,
    tags = CASE WHEN i.tags IS NULL THEN l.tags ELSE ${MERGED_TAGS} END,
    subscription = ${NEXT_SUB},
    subscription_changed_at = CASE WHEN ${NEXT_SUB} <> l.subscription THEN now() ELSE l.subscription_changed_at END,
    subscription_source = CASE WHEN ${NEXT_SUB} <> l.subscription THEN 'import' ELSE l.subscription_source END,
    updated_at = now()
  FROM input i
  WHERE l.project_id = $1 AND l.email_normalized = i.norm AND i.existing
    AND (i.attrs = '{}'::jsonb
         OR ((SELECT count(*) FROM jsonb_object_keys(l.attributes || i.attrs)) <= ${LEAD_LIMITS.attributeKeys}
             AND octet_length((l.attributes || i.attrs)::text) <= ${LEAD_LIMITS.attributesBytes}))
    AND (i.tags IS NULL OR cardinality(${MERGED_TAGS}) <= ${LEAD_LIMITS.tags})
  RETURNING l.id, i.line, i.supp
)`;
const NO_UPDATE = `upd AS (SELECT NULL::uuid AS id, NULL::int AS line, NULL::text AS supp WHERE false)`;

/**
 * New emails, inserted in email order (the arrays come sorted) without ON CONFLICT: its speculative insertion cost a
 * quarter more per row. An email another writer inserts meanwhile makes the statement fail with a unique
 * violation (after that writer commits); the chunk is then rolled back and done again, the email now known.
 */
const INSERT = `ins AS (
  INSERT INTO leads (id, project_id, email, email_normalized, first_name, last_name, phone, attributes, tags,
                     subscription, subscription_changed_at, subscription_source, source)
  SELECT i.id, $1, i.email, i.norm, i.first_name, i.last_name, i.phone, i.attrs, COALESCE(${TAGS}, '{}'), n.sub,
         CASE WHEN n.sub <> 'unknown' THEN now() END, CASE WHEN n.sub <> 'unknown' THEN 'import' END, 'import'
    FROM input i CROSS JOIN LATERAL (SELECT ${NEW_SUB} AS sub) n
   WHERE NOT i.existing
  RETURNING id
)`;
const NO_INSERT = `ins AS (SELECT NULL::uuid AS id WHERE $3::text IS NULL AND false)`;

/** Existing leads the database refused to merge (over the limits). */
const REFUSED = `SELECT i.line FROM input i WHERE i.existing AND NOT EXISTS (SELECT 1 FROM upd u WHERE u.line = i.line)`;
/** The insert takes every unknown email or fails the statement (no ON CONFLICT): its suppressed rows are those. */
const SUPPRESSED_NEW = "(SELECT count(*) FROM input WHERE NOT existing AND supp IS NOT NULL)";

function chunkSql(mode: ImportMode): string {
  const updates = mode !== "insert_only";
  const inserts = mode !== "update_only";
  const skipped =
    mode === "insert_only"
      ? "(SELECT count(*) FROM input WHERE existing)"
      : mode === "update_only"
        ? "(SELECT count(*) FROM input WHERE NOT existing)"
        : "0";
  return `WITH ${INPUT},
${updates ? UPDATE : NO_UPDATE},
${inserts ? INSERT : NO_INSERT},
seg AS (
  INSERT INTO segment_members (segment_id, lead_id, project_id)
  SELECT $4::uuid, x.id, $1 FROM (SELECT id FROM upd UNION ALL SELECT id FROM ins) x WHERE $4::uuid IS NOT NULL
  ON CONFLICT DO NOTHING
),
rej AS (
  INSERT INTO import_rejected_rows (job_id, project_id, line, reason, cells)
  SELECT $2, $1, r.line, r.reason, ARRAY(SELECT jsonb_array_elements_text(r.cells))
    FROM unnest($15::int[], $16::text[], $17::jsonb[]) AS r(line, reason, cells)
  ON CONFLICT DO NOTHING
)
SELECT (SELECT count(*) FROM ins)::int AS created,
       (SELECT count(*) FROM upd)::int AS updated,
       ${skipped}::int AS skipped,
       ((SELECT count(*) FROM upd WHERE upd.supp IS NOT NULL) + ${inserts ? SUPPRESSED_NEW : "0"})::int AS suppressed,
       ${updates ? `ARRAY(${REFUSED})` : "'{}'::int[]"} AS refused`;
}

const SQL: Record<ImportMode, string> = {
  upsert: chunkSql("upsert"),
  insert_only: chunkSql("insert_only"),
  update_only: chunkSql("update_only"),
};

/**
 * The job's counters and checkpoint, moved only from `chunk.from` and only while `processing`. When chunks are
 * written in parallel, the one before may not have committed yet: this statement then blocks on its row lock (or
 * finds the checkpoint behind and is run again shortly), so checkpoints commit in file order.
 */
const CHECKPOINT = `UPDATE import_jobs SET
    processed_rows = processed_rows + $4,
    created_count = created_count + $5,
    updated_count = updated_count + $6,
    skipped_count = skipped_count + $7,
    duplicate_count = duplicate_count + $8,
    invalid_count = invalid_count + $9,
    suppressed_count = suppressed_count + $10,
    updated_at = now()
  WHERE project_id = $1 AND id = $2 AND status = 'processing' AND processed_rows = $3
  RETURNING processed_rows`;

const INSERT_REFUSED = `INSERT INTO import_rejected_rows (job_id, project_id, line, reason, cells)
  SELECT $2, $1, r.line, $3, ARRAY(SELECT jsonb_array_elements_text(r.cells))
    FROM unnest($4::int[], $5::jsonb[]) AS r(line, cells)
  ON CONFLICT DO NOTHING`;

/**
 * Encodes chunks' leads as their statement's binary array parameters ($5 to $14), sorted by normalised email: locks
 * are then taken in email order, so two jobs of one project importing the same people do not deadlock, and new
 * emails reach the unique index in order. New leads get version-7 ids here (used only when the email is new).
 * The columns are views of the encoder's own buffers, rewritten by its next call: one encoder per chunk in flight.
 * Reusing the buffers keeps a million rows from leaving ~50 MB of spent buffers for the next full collection.
 */
export function createImportLeadsEncoder(): (leads: readonly ImportLead[]) => EncodedImportLeads {
  const line = new BinaryArrayWriter(OID.int4);
  const id = new BinaryArrayWriter(OID.uuid);
  const email = new BinaryArrayWriter(OID.text, 64 * 1024);
  const norm = new BinaryArrayWriter(OID.text, 64 * 1024);
  const first = new BinaryArrayWriter(OID.text);
  const last = new BinaryArrayWriter(OID.text);
  const phone = new BinaryArrayWriter(OID.text);
  const attrs = new BinaryArrayWriter(OID.jsonb, 64 * 1024);
  const tags = new BinaryArrayWriter(OID.text, 32 * 1024);
  const sub = new BinaryArrayWriter(OID.text);
  const writers = [line, id, email, norm, first, last, phone, attrs, tags, sub];
  return (leads) => {
    const sorted = [...leads].sort((a, b) => (a.norm < b.norm ? -1 : a.norm > b.norm ? 1 : 0));
    const n = sorted.length;
    for (const w of writers) w.reset();
    const ids = timeOrderedUuidBytes(n);
    for (let i = 0; i < n; i++) {
      const l = sorted[i]!;
      line.int4(l.line);
      id.uuid(ids, i * 16);
      email.text(l.email);
      norm.text(l.norm);
      first.text(l.firstName);
      last.text(l.lastName);
      phone.text(l.phone);
      attrs.jsonb(l.attributes);
      tags.text(l.tags.length ? l.tags.join(TAG_SEPARATOR) : null);
      sub.text(l.subscription);
    }
    return { count: n, columns: writers.map((w) => w.finish()) };
  };
}

/** The rejected rows' columns ($15 to $17) as binary arrays: line, reason, cells (a JSON array each). */
function encodeRejected(rejected: readonly RejectedImportRow[]): Buffer[] {
  const line = new BinaryArrayWriter(OID.int4, 32 + rejected.length * 8);
  const reason = new BinaryArrayWriter(OID.text, 32 + rejected.length * 32);
  const cells = new BinaryArrayWriter(OID.jsonb, 32 + rejected.length * 64);
  for (const r of rejected) {
    line.int4(r.line);
    reason.text(r.reason);
    cells.jsonb(JSON.stringify(r.cells));
  }
  return [line.finish(), reason.finish(), cells.finish()];
}

/** The job's state and checkpoint (a processor re-reads them when a chunk's checkpoint update found neither). */
export async function importCheckpoint(
  client: PoolClient,
  projectId: ProjectId,
  jobId: string,
): Promise<{ status: string; processed_rows: number } | undefined> {
  const { rows } = await client.query<{ status: string; processed_rows: number }>(
    "SELECT status, processed_rows FROM import_jobs WHERE project_id = $1 AND id = $2",
    [projectId, jobId],
  );
  return rows[0];
}

/**
 * Errors after which the chunk is simply done again: another writer created one of its new emails first (unique
 * violation), or two writers of the same leads met in a deadlock or a serialization failure.
 */
export const isChunkConflict = (err: unknown): boolean =>
  ["23505", "40P01", "40001"].includes((err as { code?: string } | undefined)?.code ?? "");

/**
 * Writes one chunk in one transaction on the processor's connection: the leads (set-based, one statement for the
 * whole chunk: unnest → update known leads, insert new ones, join the segment), the rejected rows, and the job's
 * counters and checkpoint. The checkpoint moves only from `chunk.from` and only while the job is `processing`, so a
 * chunk is applied exactly once: after a crash the transaction is gone, and a resumed processor starts again at
 * the committed checkpoint.
 */
export async function commitImportChunk(
  client: PoolClient,
  projectId: ProjectId,
  jobId: string,
  settings: ImportChunkSettings,
  chunk: ImportChunk,
  /** While the chunk before this one has not committed: wait for it (false: give up, nothing written). */
  keepWaiting: () => boolean = () => false,
): Promise<ChunkOutcome> {
  // Asynchronous commit: the transaction does not wait for its WAL flush, which was a large share of a chunk's time.
  // Safe for exactly-once: a database crash can lose only whole recent transactions, each chunk's leads together
  // with its checkpoint, and the resumed job does those chunks again.
  await client.query("BEGIN; SET LOCAL synchronous_commit = off");
  try {
    const { rows } = await client.query<{
      created: number;
      updated: number;
      skipped: number;
      suppressed: number;
      refused: number[];
    }>(SQL[settings.mode], [
      projectId,
      jobId,
      settings.defaultSubscription,
      settings.segmentId,
      ...chunk.leads.columns,
      ...encodeRejected(chunk.rejected),
    ]);
    const r = rows[0]!;
    if (r.refused.length)
      await client.query(INSERT_REFUSED, [
        projectId,
        jobId,
        REFUSED_REASON,
        r.refused,
        r.refused.map((line) => JSON.stringify(chunk.cellsOf(line))),
      ]);
    const values = [
      projectId,
      jobId,
      chunk.from,
      chunk.rows,
      r.created,
      r.updated,
      r.skipped,
      chunk.duplicates,
      chunk.invalid + r.refused.length,
      r.suppressed,
    ];
    for (;;) {
      if ((await client.query(CHECKPOINT, values)).rowCount === 1) break;
      const now = await importCheckpoint(client, projectId, jobId);
      if (now?.status !== "processing" || now.processed_rows > chunk.from || !keepWaiting()) {
        await client.query("ROLLBACK");
        return { committed: false };
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await client.query("COMMIT");
    return {
      committed: true,
      created: r.created,
      updated: r.updated,
      skipped: r.skipped,
      suppressed: r.suppressed,
      refused: r.refused.length,
    };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
