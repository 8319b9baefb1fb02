import { randomFillSync } from "node:crypto";

/**
 * One-dimensional PostgreSQL arrays in the binary wire format (what `array_recv` reads), written straight into a
 * Buffer. node-postgres sends a Buffer parameter as binary, so a chunk's columns reach `unnest($5::int[], …)`
 * without the text form: no per-element quoting and escaping in Node (the text encoding of a 1,000-lead chunk's
 * ten arrays was a sixth of the scheduler's CPU per row), and no array literal to parse in the server.
 *
 * Format: ndim, has-nulls flag, element type OID, then per dimension its length and lower bound (1), then each
 * element as its byte length (-1: NULL) and its bytes. An empty array has no dimension.
 */
export const OID = { int4: 23, text: 25, uuid: 2950, jsonb: 3802 } as const;

const HEADER = 20;

export class BinaryArrayWriter {
  private buf: Buffer;
  private off = HEADER;
  private count = 0;
  private nulls = false;

  constructor(
    private readonly oid: number,
    capacity = 16 * 1024,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, HEADER + 64));
  }

  private room(bytes: number): void {
    if (this.off + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.off + bytes));
    this.buf.copy(next, 0, 0, this.off);
    this.buf = next;
  }

  int4(n: number): void {
    this.room(8);
    this.buf.writeInt32BE(4, this.off);
    this.buf.writeInt32BE(n, this.off + 4);
    this.off += 8;
    this.count++;
  }

  /** A text element (NULL for null). */
  text(s: string | null): void {
    if (s === null) return this.null();
    // At most 3 bytes per UTF-16 unit; the length is written once the bytes are.
    this.room(4 + s.length * 3);
    const n = this.buf.write(s, this.off + 4, "utf8");
    this.buf.writeInt32BE(n, this.off);
    this.off += 4 + n;
    this.count++;
  }

  /** A jsonb element: the format version (1), then the JSON text. */
  jsonb(json: string): void {
    this.room(5 + json.length * 3);
    this.buf[this.off + 4] = 1;
    const n = this.buf.write(json, this.off + 5, "utf8");
    this.buf.writeInt32BE(n + 1, this.off);
    this.off += 5 + n;
    this.count++;
  }

  /** A uuid element: 16 bytes from `src` at `at`. */
  uuid(src: Buffer, at: number): void {
    this.room(20);
    this.buf.writeInt32BE(16, this.off);
    src.copy(this.buf, this.off + 4, at, at + 16);
    this.off += 20;
    this.count++;
  }

  null(): void {
    this.room(4);
    this.buf.writeInt32BE(-1, this.off);
    this.off += 4;
    this.count++;
    this.nulls = true;
  }

  /** Starts a new array in the same buffer (the bytes `finish` gave before are overwritten). */
  reset(): this {
    this.off = HEADER;
    this.count = 0;
    this.nulls = false;
    return this;
  }

  /** The array's bytes: a view of the writer's buffer, valid until it is reset. */
  finish(): Buffer {
    const b = this.buf;
    if (this.count === 0) {
      b.writeInt32BE(0, 0);
      b.writeInt32BE(0, 4);
      b.writeInt32BE(this.oid, 8);
      return b.subarray(0, 12);
    }
    b.writeInt32BE(1, 0);
    b.writeInt32BE(this.nulls ? 1 : 0, 4);
    b.writeInt32BE(this.oid, 8);
    b.writeInt32BE(this.count, 12);
    b.writeInt32BE(1, 16);
    return b.subarray(0, this.off);
  }
}

/**
 * `n` version-7 UUIDs (RFC 9562) as 16 bytes each: 48-bit Unix milliseconds, the version, 74 random bits, drawn
 * in one call. The binary form of timeOrderedUuid (../time-ordered-uuid.ts), for ids that never need a string.
 */
export function timeOrderedUuidBytes(n: number, now = Date.now()): Buffer {
  const out = Buffer.allocUnsafe(n * 16);
  if (n === 0) return out;
  randomFillSync(out);
  const hi = Math.floor(now / 0x10000);
  const lo = now % 0x10000;
  for (let i = 0; i < n; i++) {
    const o = i * 16;
    out.writeUInt32BE(hi, o);
    out.writeUInt16BE(lo, o + 4);
    out[o + 6] = 0x70 | (out[o + 6]! & 0x0f);
    out[o + 8] = 0x80 | (out[o + 8]! & 0x3f);
  }
  return out;
}
