import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';

export async function readStream(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * The bytes of FILE, or of standard input for `-`, exactly as given (nothing added or
 * stripped). `flag` names the option in the error message.
 */
export async function readInputBytes(spec: string, stdin: Readable, flag: string): Promise<Buffer> {
  if (spec === '-') return readStream(stdin);
  try {
    return await readFile(spec);
  } catch (error) {
    throw new UsageError(`cannot read ${flag} ${spec}: ${fileErrorReason(error)}`);
  }
}

/** A file error in words: what went wrong with the path, for "cannot read/create …" messages. */
export function fileErrorReason(error: unknown, missing = 'no such file'): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return missing;
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return (error as Error).message;
}

/** Where bytes stop being UTF-8: the offset of the first byte of the first broken sequence, and that byte. */
export interface NotUtf8 {
  offset: number;
  byte: number;
}

/** A file's first byte that is not UTF-8, in words for a message: `not UTF-8 (byte 0xE9 at offset 3); save it as UTF-8`. */
export function notUtf8Words({ offset, byte }: NotUtf8): string {
  const hex = byte.toString(16).toUpperCase().padStart(2, '0');
  return `not UTF-8 (byte 0x${hex} at offset ${offset}); save it as UTF-8`;
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

/**
 * Bytes as UTF-8 text, without a leading byte-order mark (an editor may put one first: it is not
 * part of the text), or a UsageError naming the first byte that is not UTF-8 and its offset:
 * Buffer#toString would replace it with U+FFFD, and that replacement is what would be sent and
 * stored. `what` names the input (`--data-file x.json`).
 */
export function strictUtf8(bytes: Buffer, what: string): string {
  const bad = notUtf8(bytes);
  if (bad !== undefined) throw new UsageError(`${what} is ${notUtf8Words(bad)}`);
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}
