/**
 * The bulk file as a run reads it: a private copy in TMPDIR (snapshotInput), written whole or
 * refused, with its hash, size and how it came (a pipe, a file), and the row cut short at a pipe's
 * end (refuseCutLastRow). Past 300 lines on purpose: the copy's steps (read, write whole, check
 * its size, remove it twice) and each step's refusal are one path whose every failure must leave
 * no copy behind and send nothing (and a killed run's copy is removed by the next: removeStaleCopies);
 * split, each half would need the other's temporary directory.
 */
import { createHash, type Hash } from 'node:crypto';
import {
  closeSync,
  createWriteStream,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '../errors.js';
import { cutShortWords as cutShort, fromPipe, unendedLastLine } from '../system/cut-short.js';
import { fileErrorReason, interruptedReading, PLAN_INPUT_LIMIT } from '../system/input.js';
import { writeAll } from '../system/output-file.js';
import { judgeMark, MARK_WORD, markOfWord, markWord, uid } from '../system/processes.js';
import { pathWord } from '../system/shell-words.js';
import type { LineVerdict } from './check.js';
import { head } from './csv.js';
import { detectFormat } from './readers.js';

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
  /**
   * A pipe (standard input or a FIFO: `<(…)`, `/dev/stdin` from one) whose last line has no line
   * ending and holds more than separators: what wrote it may have been cut short
   * (refuseCutLastRow). A regular file, named or redirected (`< grants.csv`), is taken as it is.
   */
  cutShort: boolean;
  /**
   * Removes the copy and its directory, trying twice; the failure in words (`too many open files
   * …`) when it stays, for a warning after the run's own outcome, which it never replaces.
   */
  remove(): string | undefined;
}

/**
 * How the snapshot reaches its disk: a seam so a test can play a TMPDIR that fills up (a write
 * that takes part of its bytes, then ENOSPC) or a removal that fails (EMFILE), as a tmpfs or a
 * ulimit would; svc itself always uses realSnapshotDisk.
 */
export interface SnapshotDisk {
  /** One write(2) of `bytes` from `offset`: the count it took, maybe fewer (a disk filling up). */
  write(fd: number, bytes: Buffer, offset: number): number;
  /** Removes the copy, then its directory; throws the system error. */
  remove(dir: string, path: string): void;
}

export const realSnapshotDisk: SnapshotDisk = {
  write: (fd, bytes, offset) => writeSync(fd, bytes, offset),
  // unlink(2) and rmdir(2) take no file descriptor, so this works when the run used them all up
  // (EMFILE: a small `ulimit -n`, a high --concurrency), where a recursive rm (a scandir) did not.
  remove(dir, path) {
    try {
      unlinkSync(path);
      rmdirSync(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTEMPTY') throw error;
      // Gone already, or something else was put in the private directory: remove it all.
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** A failure on the copy's side (TMPDIR): its own words, not "cannot read" the input. */
class CopyFailed extends Error {
  constructor(readonly reason: unknown) {
    super('the copy failed');
  }
}

/** Runs `step` on the copy's side: its system error is the copy's (CopyFailed). */
function copying<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    throw new CopyFailed(error);
  }
}

/** The copy holds every byte read, or the copy failed (a write that said it took bytes it did not). */
function checkCopied(fd: number, size: number): void {
  const copied = copying(() => fstatSync(fd).size);
  if (copied !== size) {
    throw new CopyFailed(new Error(`the copy holds ${copied} of the ${size} bytes read`));
  }
}

/**
 * Copies a file through one reused buffer: a stream would allocate a buffer per chunk, and the
 * allocator keeps that churn as resident memory (tens of megabytes for a large file). Every byte
 * read is written (a short write, a disk filling up, is followed by one for the rest, which says
 * why it failed: attack21 F4 — the count was ignored, and a full TMPDIR cut the copy, so the run
 * sent the rows before the cut, the last one cut short, and ended exit 0).
 */
function copyFile(from: string, to: string, hash: Hash, limit: number, disk: SnapshotDisk): void {
  const source = openSync(from, 'r');
  let target: number | undefined;
  try {
    target = copying(() => openSync(to, 'wx', 0o600));
    // A regular file larger than the limit is refused before it is read; a device past it.
    const info = fstatSync(source);
    if (info.isFile() && info.size > limit) throw tooManyBytes(from, limit);
    const buffer = Buffer.allocUnsafe(1 << 16);
    let size = 0;
    for (let read = readSync(source, buffer); read > 0; read = readSync(source, buffer)) {
      size += read;
      if (size > limit) throw tooManyBytes(from, limit);
      hash.update(buffer.subarray(0, read));
      const fd = target;
      copying(() => writeAll(fd, buffer.subarray(0, read), disk.write));
    }
    checkCopied(target, size);
  } finally {
    closeSync(source);
    if (target !== undefined) closeSync(target);
  }
}

/**
 * The refusal of a copy that could not be made in TMPDIR (missing, full, read-only): the input is
 * fine, nothing was sent (exit 2, as for a `--secret-file` disk found full before the request).
 */
function copyRefusal(what: string, dir: string, reason: unknown): UsageError {
  const code = (reason as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new UsageError(
      `cannot copy ${what} to TMPDIR (${dir}): it does not exist or is not a directory; nothing was sent`,
      {
        code: 'tmpdir_unusable',
        hint: 'set TMPDIR to a directory that exists and that you can write (or unset it: /tmp), then run the command again',
      },
    );
  }
  return new UsageError(
    `cannot copy ${what} to TMPDIR (${dir}): ${fileErrorReason(reason)}; nothing was sent`,
    {
      code: 'tmpdir_unusable',
      hint: 'make room there, or set TMPDIR to a directory you can write with room for a copy of the input (svc runs from that copy), then run the command again',
    },
  );
}

/**
 * The copy's last line has no line ending and holds something a row can be made of: a line of
 * separators or blanks alone (a spreadsheet's empty row) is no row, cut or not.
 */
function endsInRow(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 4096));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    return unendedLastLine(tail, /^[,;\t ]*$/) !== undefined;
  } finally {
    closeSync(fd);
  }
}

/** The copies' directories: `svc-input-MARK-XXXXXX`, MARK their run's (markWord). */
const COPY_PREFIX = 'svc-input-';

/**
 * svc's own directory in TMPDIR, one per user (`svc-inputs-UID`), where the copies' directories
 * are made: a run's sweep lists only it, not the whole of TMPDIR (a shared /tmp of 90,000 entries
 * cost every bulk run 0.1 s of CPU). It is used only when it is a real directory (not a symlink)
 * of the user's own with no access for group or others (0700 as made); another user's directory
 * of that name, a symlink or an open mode there is not touched: the copy's directory is then made
 * in TMPDIR itself, as before session 27 (private as ever, but not swept). The last run to remove
 * its copy removes it when it is empty, so a run leaves nothing in TMPDIR. `null`: it was gone
 * when looked at (another run's leaveHome between its making and the look): to be made again.
 */
function copiesHome(temporary: string): string | undefined | null {
  const me = uid();
  const home = join(temporary, `svc-inputs-${me ?? 'user'}`);
  try {
    mkdirSync(home, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const stat = lstatSync(home);
    const own = stat.isDirectory() && (me === undefined || stat.uid === me);
    return own && (stat.mode & 0o077) === 0 ? home : undefined;
  } catch (error) {
    // Removed by another run since made (review27b L2): tried again, as a mkdtemp's ENOENT is.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

/** The copy's private directory (0700), in svc's own directory when it is usable (copiesHome). */
function makeCopyDir(temporary: string): { dir: string; home: string | undefined } {
  const name = `${COPY_PREFIX}${markWord()}-`;
  // Another run may remove an empty home between its making and ours: made again, a few times.
  for (let attempt = 1; attempt <= 3; attempt++) {
    const home = copiesHome(temporary);
    if (home === undefined) break;
    if (home === null) continue;
    try {
      removeStaleCopies(home);
      return { dir: mkdtempSync(join(home, name)), home };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') break;
    }
  }
  return { dir: mkdtempSync(join(temporary, name)), home: undefined };
}

/** Removes svc's own directory if it is empty: another run's copy in it (ENOTEMPTY) keeps it. */
function leaveHome(home: string): void {
  try {
    rmdirSync(home);
  } catch {
    // another run's copy is in it, or it is gone already
  }
}

/**
 * Removes the copies in `home` (svc's own directory, copiesHome) that runs which are gone left
 * (kill -9, a power cut, an OOM kill: attack25b L3): each holds a whole grant file or standard
 * input, justifications and user lists, 0600 in a 0700 directory, and nothing else removed them.
 * Whether a run is gone is judgeMark's word on the mark in the directory's name, as for the
 * journal's lock: by pid and start in this boot and PID namespace, and only a run judgeMark says
 * is gone (`runs === false`) loses its copy. A mark of another boot or another PID namespace says
 * nothing of its run (another machine sharing TMPDIR, a VM-isolated container with its own
 * kernel, a container sharing it: review25d M1), and the copy's age says nothing either (it is
 * written once, then read for the whole run), so it is left, as is a copy of this process
 * (another run in it). Only directories the user owns; best effort: what cannot be read or
 * removed is left as it is. Copies an svc before session 27 made in TMPDIR itself are not swept.
 */
export function removeStaleCopies(home: string): void {
  const me = uid();
  const named = new RegExp(`^${COPY_PREFIX}(${MARK_WORD})-[A-Za-z0-9]{6}$`);
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return;
  }
  for (const name of names) {
    const word = named.exec(name)?.[1];
    const writer = word === undefined ? undefined : markOfWord(word);
    if (writer === undefined) continue;
    const stale = join(home, name);
    try {
      const stat = lstatSync(stale);
      if (!stat.isDirectory() || (me !== undefined && stat.uid !== me)) continue;
      const judged = judgeMark(writer, true, stat.mtimeMs);
      if (judged.runs === false) {
        rmSync(stale, { recursive: true, force: true });
      }
    } catch {
      // gone since, or not the user's to remove: left
    }
  }
}

export async function snapshotInput(
  spec: string,
  stdin: Readable,
  flag: string,
  limit = BULK_INPUT_LIMITS.bytes,
  /** Ctrl-C: standard input is not waited on to its end (review20d D6), nothing was sent. */
  signal?: AbortSignal,
  disk: SnapshotDisk = realSnapshotDisk,
): Promise<InputSnapshot> {
  const what = spec === '-' ? 'standard input' : spec;
  const temporary = tmpdir();
  let dir: string;
  let home: string | undefined;
  try {
    ({ dir, home } = makeCopyDir(temporary));
  } catch (error) {
    throw copyRefusal(what, temporary, error);
  }
  const path = join(dir, 'input');
  const removeOnce = () => {
    disk.remove(dir, path);
    // svc's own directory goes with the last copy in it (another run's copy keeps it).
    if (home !== undefined) leaveHome(home);
  };
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
    if (spec === '-') {
      await pipeline(
        stdin,
        hashing,
        createWriteStream(path, { mode: 0o600 }),
        signal ? { signal } : {},
      ).catch((error: unknown) => {
        // The copy's side (open, write) fails with its syscall named; standard input's own with `read`.
        const call = (error as NodeJS.ErrnoException).syscall;
        throw call === 'open' || call === 'write' ? new CopyFailed(error) : error;
      });
      const copied = copying(() => statSync(path).size);
      if (copied !== size)
        throw new CopyFailed(new Error(`the copy holds ${copied} of the ${size} bytes read`));
    } else copyFile(spec, path, hash, limit, disk);
  } catch (error) {
    removeTwice(removeOnce);
    if (signal?.aborted) {
      throw interruptedReading(what);
    }
    if (error instanceof UsageError) throw error;
    if (error instanceof CopyFailed) throw copyRefusal(what, temporary, error.reason);
    if (spec === '-') throw new UsageError(`cannot read standard input: ${(error as Error).message}`);
    throw new UsageError(`cannot read ${flag} ${spec}: ${fileErrorReason(error)}`);
  }
  return {
    path,
    label: spec === '-' ? 'stdin' : spec,
    name: spec === '-' ? '' : spec,
    sha256: hash.digest('hex'),
    cutShort: fromPipe(spec, stdin) && endsInRow(path),
    remove: () => {
      const failure = removeTwice(removeOnce);
      return failure === undefined
        ? undefined
        : `svc's private copy of ${what} (0600) could not be removed (${fileErrorReason(failure)}); remove it: rm -r ${pathWord(dir)}`;
    },
  };
}

/** Removes the snapshot, once more if that failed; the second failure, or undefined once it is gone. */
function removeTwice(removeOnce: () => void): unknown {
  for (let attempt = 1; ; attempt++) {
    try {
      removeOnce();
      return undefined;
    } catch (error) {
      if (attempt === 2) return error;
    }
  }
}

/**
 * The verdicts of a CSV on standard input that ends in the middle of a line, its last row refused
 * (attack20 F6). svc cannot see the exit of what writes the pipe (`(head -c -6 f.csv; exit 1) |`,
 * `curl` on a dropped connection): a last field cut short is a valid row with a shorter value,
 * which can be another live role or user (`fx-desk` cut to `fx`). Most writers end their last line
 * (not all: RFC 4180 allows either), so through a pipe such an input is suspect: refused before
 * anything is sent, naming the row. A regular file without a final newline (hand-edited, or a
 * generator's `join('\n')`), named or redirected, is taken; so is NDJSON or a JSON array,
 * whose cut line is not valid JSON and cannot pass for another row.
 */
export async function* refuseCutLastRow<T extends LineVerdict>(
  input: InputSnapshot,
  verdicts: AsyncIterable<T>,
): AsyncGenerator<T | LineVerdict> {
  if (!input.cutShort || detectFormat(input.name, head(input.path)) !== 'csv') {
    yield* verdicts;
    return;
  }
  let held: T | undefined;
  for await (const verdict of verdicts) {
    if (held !== undefined) yield held;
    held = verdict;
  }
  if (held === undefined) return;
  const shared = 'shared' in held ? held.shared : undefined;
  yield {
    line: held.line,
    problems: ['problems' in held ? held.problems : [], cutShortWords(input)].flat(),
    ...(shared ? { shared } : {}),
  };
}

const cutShortWords = (input: InputSnapshot) => cutShort(input.name === '' ? '-' : input.label, 'row');
