// UTF-8 checked byte by byte: shared by the CLI (files it reads) and the sandbox (bodies it takes).

/** Where bytes stop being UTF-8: the offset of the first byte of the first broken sequence, and that byte. */
export interface NotUtf8 {
  offset: number;
  byte: number;
}

/**
 * Checks bytes as UTF-8 chunk by chunk, as they stream (a character may be cut between two
 * chunks), in one linear pass: the WHATWG decoder's rules (no overlong forms, no surrogates,
 * nothing past U+10FFFF), which are where Buffer#toString would put a U+FFFD.
 */
export class Utf8Check {
  /** Offset of the next byte. */
  #offset = 0;
  /** Continuation bytes still needed by the character begun at #lead. */
  #need = 0;
  #lower = 0x80;
  #upper = 0xbf;
  #lead: NotUtf8 = { offset: 0, byte: 0 };

  /** The first broken sequence that starts before this chunk's end, if any (then stop pushing). */
  push(chunk: Uint8Array): NotUtf8 | undefined {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.#need === 0) {
        if (b < 0x80) continue;
        this.#lead = { offset: this.#offset + i, byte: b };
        if (b >= 0xc2 && b <= 0xdf) this.#need = 1;
        else if (b >= 0xe0 && b <= 0xef) {
          this.#need = 2;
          if (b === 0xe0) this.#lower = 0xa0;
          if (b === 0xed) this.#upper = 0x9f;
        } else if (b >= 0xf0 && b <= 0xf4) {
          this.#need = 3;
          if (b === 0xf0) this.#lower = 0x90;
          if (b === 0xf4) this.#upper = 0x8f;
        } else return this.#lead;
      } else {
        if (b < this.#lower || b > this.#upper) return this.#lead;
        this.#lower = 0x80;
        this.#upper = 0xbf;
        this.#need--;
      }
    }
    this.#offset += chunk.length;
    return undefined;
  }

  /** At the end of the bytes: a character cut short, if any. */
  end(): NotUtf8 | undefined {
    return this.#need > 0 ? this.#lead : undefined;
  }
}

/** The first broken UTF-8 sequence of `bytes`, or undefined when they are all UTF-8. */
export function notUtf8(bytes: Uint8Array): NotUtf8 | undefined {
  const check = new Utf8Check();
  return check.push(bytes) ?? check.end();
}
