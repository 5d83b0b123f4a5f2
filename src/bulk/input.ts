import { createHash, type Hash } from 'node:crypto';
import { closeSync, createWriteStream, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
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

/**
 * Copies a file through one reused buffer: a stream would allocate a buffer per chunk, and the
 * allocator keeps that churn as resident memory (tens of megabytes for a large file).
 */
function copyFile(from: string, to: string, hash: Hash): void {
  const source = openSync(from, 'r');
  const target = openSync(to, 'wx', 0o600);
  try {
    const buffer = Buffer.allocUnsafe(1 << 16);
    for (let read = readSync(source, buffer); read > 0; read = readSync(source, buffer)) {
      hash.update(buffer.subarray(0, read));
      writeSync(target, buffer, 0, read);
    }
  } finally {
    closeSync(source);
    closeSync(target);
  }
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
    if (spec === '-') await pipeline(stdin, hashing, createWriteStream(path, { mode: 0o600 }));
    else copyFile(spec, path, hash);
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
