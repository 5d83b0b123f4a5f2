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
