/**
 * Keys seen so far, kept compactly so a file of millions of rows can be checked for repeats in
 * a few tens of megabytes: per key, a 64-bit hash, the line it was on and the byte offset of its
 * record, in typed arrays (a Set of a million strings costs about three times as much). A hash is
 * not the key: a match is only a candidate, which the caller confirms by reading the earlier
 * record back from the file at its offset.
 */
export class SeenKeys {
  #slots = new Uint32Array(1 << 12);
  #hi = new Uint32Array(1 << 11);
  #lo = new Uint32Array(1 << 11);
  #lines = new Uint32Array(1 << 11);
  #offsets = new Float64Array(1 << 11);
  #count = 0;

  /**
   * Records `key` (at `line`, `offset`) unless a key with the same hash was seen: then that key's
   * line and offset come back (and nothing is recorded).
   */
  add(key: string, line: number, offset: number): { line: number; offset: number } | undefined {
    const [hi, lo] = hash64(key);
    const mask = this.#slots.length - 1;
    for (let slot = lo & mask; ; slot = (slot + 1) & mask) {
      const held = this.#slots[slot]!;
      if (held === 0) {
        this.#store(slot, hi, lo, line, offset);
        return undefined;
      }
      const i = held - 1;
      if (this.#hi[i] === hi && this.#lo[i] === lo)
        return { line: this.#lines[i]!, offset: this.#offsets[i]! };
    }
  }

  #store(slot: number, hi: number, lo: number, line: number, offset: number): void {
    const i = this.#count++;
    if (i === this.#hi.length) {
      this.#hi = grow(this.#hi);
      this.#lo = grow(this.#lo);
      this.#lines = grow(this.#lines);
      this.#offsets = grow(this.#offsets);
    }
    this.#hi[i] = hi;
    this.#lo[i] = lo;
    this.#lines[i] = line;
    this.#offsets[i] = offset;
    this.#slots[slot] = i + 1;
    // At most half full, so a probe is short; the table is rebuilt twice as large.
    if (this.#count * 2 > this.#slots.length) this.#rehash();
  }

  #rehash(): void {
    const slots = new Uint32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    for (let i = 0; i < this.#count; i++) {
      let slot = this.#lo[i]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = i + 1;
    }
    this.#slots = slots;
  }
}

function grow<T extends Uint32Array | Float64Array>(array: T): T {
  const bigger = new (array.constructor as new (n: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** Two independent 32-bit FNV-1a hashes of the key's UTF-16 code units. */
function hash64(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, b >>> 0];
}
