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
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (error as Error).message;
    throw new UsageError(`cannot read ${flag} ${spec}: ${reason}`);
  }
}
