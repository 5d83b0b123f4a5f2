import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '../errors.js';
import { fileErrorReason } from '../system/input.js';

/**
 * A bulk input file, or standard input, copied once to a private file (0600 in a 0700 directory)
 * while its SHA-256 is computed. The run reads that copy twice, streaming — once to check every
 * line, once to send — so it works on exactly the bytes it checked and hashed, whatever happens
 * to the original meanwhile, and memory does not grow with the file.
 */
export interface InputSnapshot {
  /** The private copy. */
  path: string;
  /** How messages name the input: the path given, or `stdin`. */
  label: string;
  /** The name the format is guessed from (empty for stdin). */
  name: string;
  sha256: string;
  remove(): void;
}

export async function snapshotInput(spec: string, stdin: Readable, flag: string): Promise<InputSnapshot> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-input-'));
  const path = join(dir, 'input');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    const source = spec === '-' ? stdin : createReadStream(spec);
    await pipeline(source, hashing, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    remove();
    if (spec === '-') throw new UsageError(`cannot read standard input: ${(error as Error).message}`);
    throw new UsageError(`cannot read ${flag} ${spec}: ${fileErrorReason(error)}`);
  }
  return {
    path,
    label: spec === '-' ? 'stdin' : spec,
    name: spec === '-' ? '' : spec,
    sha256: hash.digest('hex'),
    remove,
  };
}
