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

/**
 * Bytes as UTF-8 text without the byte-order mark an editor may put first (Windows editors do):
 * it is not part of the text, and in a message it is an invisible character.
 */
export function utf8WithoutBom(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

/**
 * Bytes as UTF-8 text, without a leading byte-order mark, or a UsageError naming the first byte
 * that is not UTF-8 and its offset: Buffer#toString would replace it with U+FFFD, and that
 * replacement is what would be sent and stored. `what` names the input (`--data-file x.json`).
 */
export function strictUtf8(bytes: Buffer, what: string): string {
  const text = bytes.toString('utf8');
  // Each U+FFFD is either in the bytes (EF BF BD, as given) or a replacement for a bad byte.
  let at = text.indexOf('\uFFFD');
  while (at !== -1) {
    const offset = Buffer.byteLength(text.slice(0, at));
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) {
      const hex = bytes[offset]!.toString(16).toUpperCase().padStart(2, '0');
      throw new UsageError(`${what} is not UTF-8 (byte 0x${hex} at offset ${offset}); save it as UTF-8`);
    }
    at = text.indexOf('\uFFFD', at + 1);
  }
  return text.replace(/^\uFEFF/, '');
}
