/**
 * The emails a job has met, with the line each first appeared on: a million addresses in about 24 MB (two 32-bit
 * hashes and the line per slot, open addressing), where a Set of the strings took over 80 MB. Two different
 * addresses share both hashes with a probability near 1 in 10^19 per pair: for a million rows, about 3 in 10^8
 * that one row is wrongly called a duplicate.
 *
 * It lives in the processor's memory only: a resumed job rebuilds it by reading the rows before its checkpoint
 * again (the same rows give the same set), so nothing about it has to be committed.
 */
export class SeenEmails {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private lines: Uint32Array;
  private count = 0;

  constructor(capacity = 1 << 16) {
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.lines = new Uint32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Records `email` first seen on `line`; answers the line it was first seen on when it is a duplicate, else 0. */
  add(email: string, line: number): number {
    if ((this.count + 1) * 2 > this.hi.length) this.grow();
    return this.put(email, line);
  }

  private put(email: string, line: number): number {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = 0; i < email.length; i++) {
      const c = email.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    // 0 marks an empty slot: keep hi non-zero.
    const hi = (h1 | 1) >>> 0;
    return this.putHash(hi, h2 >>> 0, line);
  }

  private putHash(hi: number, lo: number, line: number): number {
    const mask = this.hi.length - 1;
    let slot = (lo ^ hi) & mask;
    for (;;) {
      const h = this.hi[slot]!;
      if (h === 0) {
        this.hi[slot] = hi;
        this.lo[slot] = lo;
        this.lines[slot] = line;
        this.count++;
        return 0;
      }
      if (h === hi && this.lo[slot] === lo) return this.lines[slot]!;
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const { hi, lo, lines } = this;
    this.hi = new Uint32Array(hi.length * 2);
    this.lo = new Uint32Array(hi.length * 2);
    this.lines = new Uint32Array(hi.length * 2);
    this.count = 0;
    for (let i = 0; i < hi.length; i++) if (hi[i] !== 0) this.putHash(hi[i]!, lo[i]!, lines[i]!);
  }
}
