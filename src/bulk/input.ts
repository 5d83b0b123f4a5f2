import { createHash, type Hash } from 'node:crypto';
import {
  closeSync,
  createWriteStream,
  fstatSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '../errors.js';
import { fileErrorReason, PLAN_INPUT_LIMIT } from '../system/input.js';

/**
 * The most one bulk run reads: 256 MiB (as an access file) and 1,000,000 rows (the size svc is
 * measured at, bench/RESULTS.md: checked in about 145 MB). An endless standard input (`yes … |`)
 * or device (`--file /dev/zero`) is refused past it, with one line and exit 2, before anything is
 * sent, instead of filling the disk with its snapshot or memory with its rows.
 */
export const BULK_INPUT_LIMITS = { bytes: PLAN_INPUT_LIMIT, rows: 1_000_000 };

export type BulkInputLimits = typeof BULK_INPUT_LIMITS;

/** The refusal of an input past BULK_INPUT_LIMITS: `what` is `N MiB (B bytes)` or `N rows`. */
export function bulkInputTooLarge(label: string, what: string): UsageError {
  return new UsageError(`${label} holds more than ${what}, the most one bulk run takes; nothing was sent`, {
    code: 'input_too_large',
    hint:
      label === 'stdin'
        ? 'check what is piped in (a pipe that ends), or split the rows into several runs'
        : 'split it into files of at most 1,000,000 rows (each with the header row) and run each',
  });
}

const tooManyBytes = (label: string, limit: number) =>
  bulkInputTooLarge(
    label,
    limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB (${limit} bytes)` : `${limit} bytes`,
  );

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
function copyFile(from: string, to: string, hash: Hash, limit: number): void {
  const source = openSync(from, 'r');
  const target = openSync(to, 'wx', 0o600);
  try {
    // A regular file larger than the limit is refused before it is read; a device past it.
    const info = fstatSync(source);
    if (info.isFile() && info.size > limit) throw tooManyBytes(from, limit);
    const buffer = Buffer.allocUnsafe(1 << 16);
    let size = 0;
    for (let read = readSync(source, buffer); read > 0; read = readSync(source, buffer)) {
      size += read;
      if (size > limit) throw tooManyBytes(from, limit);
      hash.update(buffer.subarray(0, read));
      writeSync(target, buffer, 0, read);
    }
  } finally {
    closeSync(source);
    closeSync(target);
  }
}

export async function snapshotInput(
  spec: string,
  stdin: Readable,
  flag: string,
  limit = BULK_INPUT_LIMITS.bytes,
): Promise<InputSnapshot> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-input-'));
  const path = join(dir, 'input');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const hash = createHash('sha256');
  let size = 0;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limit) {
        done(tooManyBytes('stdin', limit));
        return;
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    if (spec === '-') await pipeline(stdin, hashing, createWriteStream(path, { mode: 0o600 }));
    else copyFile(spec, path, hash, limit);
  } catch (error) {
    remove();
    if (error instanceof UsageError) throw error;
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
