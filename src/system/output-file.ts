import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchownSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processRuns, uid } from './processes.js';

/** Created exclusively, never through a symbolic link: a file someone planted fails (EEXIST). */
export const NEW_FILE =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (a synchronous write or open waiting on a pipe: EAGAIN, a reader not there yet). */
export function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/**
 * Writes a small file of svc's own afresh at `path`, never through a link or into a file left
 * there: what is at `path` is removed first (a link itself, not its target), then the file is made
 * exclusively (NEW_FILE) and given to `owner` through its descriptor. Run as root in a directory of
 * $HOME's owner, a link they planted at a name svc can be expected to write (a lock's pid file, a
 * secret file's record) would otherwise have root write into, and give away, any file (review19c
 * F1, F2). Throws the system error (one planted again in between: EEXIST).
 */
export function writeOwnFile(
  path: string,
  text: string,
  mode: number,
  owner?: { uid: number; gid: number } | undefined,
): void {
  rmSync(path, { force: true });
  const fd = openSync(path, NEW_FILE, mode);
  try {
    writeAll(fd, text);
    if (owner !== undefined) fchownSync(fd, owner.uid, owner.gid);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes all of `text` to `fd` (a short write is followed by one for the rest); throws the system
 * error. A descriptor svc was handed may be non-blocking (Node makes its stdout pipe so): a full one
 * (EAGAIN) is waited for; a file never answers so.
 */
export function writeAll(
  fd: number,
  text: string | Buffer,
  /** One write(2) from `offset`, its count (a seam: a test's disk filling up). */
  write: (fd: number, bytes: Buffer, offset: number) => number = writeSync,
): void {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for (let at = 0; at < bytes.length; ) {
    try {
      at += write(fd, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      sleepSync(10);
    }
  }
}

/** A new temporary name beside `path` (`.NAME.PID-HEX`: the pid says whose, removeStaleTemporaries clears a gone one's). */
export function temporaryBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString('hex')}`);
}

/** How old (by its mtime) an older svc's `NAME.HEX.tmp` must be to be taken for a killed write's. */
const OLD_TEMPORARY_MS = 3600_000;

/**
 * Removes the temp files a write of `path` killed before its rename left beside it (kill -9, a
 * power cut): temporaryBeside's `.NAME.PID-HEX`, and the config store's proof of room
 * `.NAME.room-PID` (config/disk.ts). Each holds what was written, 0600: every profile's credential,
 * the plan an apply works from, an export. Only those of processes that are gone, and only files
 * the user owns (svc made its own): a file of that name another user owns (beside a link's target,
 * in a directory of theirs) is no copy of the user's and is not svc's to remove; it is left, unsaid
 * (the write's own temp name is random, made exclusively). Best effort: a directory that cannot be
 * read or a file that cannot be removed is left as it is. The one rule for every file svc writes
 * whole (replaceWhole runs it first).
 *
 * Before session 18 writeFileWhole named its temp `NAME.HEX.tmp` (12 hex digits, no pid): whose it
 * is cannot be told, so one is taken for a killed write's only once its mtime is OLD_TEMPORARY_MS
 * old (a write runs for seconds); a younger one may be a write still going on, and stays.
 */
export function removeStaleTemporaries(path: string): void {
  const me = uid();
  const prefix = `.${basename(path)}.`;
  const older = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    const oldStyle = name.startsWith(older) && /^[0-9a-f]{12}\.tmp$/.test(name.slice(older.length));
    if (!oldStyle) {
      if (!name.startsWith(prefix)) continue;
      const pid = /^(?:(\d+)-[0-9a-f]{12}|room-(\d+))$/.exec(name.slice(prefix.length));
      const owner = Number(pid?.[1] ?? pid?.[2]);
      if (!Number.isSafeInteger(owner) || owner === process.pid || processRuns(owner)) continue;
    }
    const stale = join(dirname(path), name);
    try {
      const stat = lstatSync(stale);
      if (!stat.isFile() || (me !== undefined && stat.uid !== me)) continue;
      if (oldStyle && !(Date.now() - stat.mtimeMs > OLD_TEMPORARY_MS)) continue;
      rmSync(stale, { force: true });
    } catch {
      // gone since, or not the user's to remove: left
    }
  }
}

/**
 * The one way svc writes a file whole (the config store, the plan kept beside a journal, `svc
 * export -o`, `svc plan --out`): `chunks` go to a temporary file beside it (temporaryBeside: its pid
 * lets a later write remove it if this one is killed, removeStaleTemporaries), made new —
 * never through a link, never into a file someone planted — with `mode` whatever the umask (0600
 * for a secret), synced; `check()` runs once more; then it is renamed to `path`, which replaces the
 * name itself (a link there, not its target). Nothing is left behind when it fails (the system
 * error is thrown). `owner` is given the file before it is renamed (root writing for another
 * user: config/ownership.ts, heirOf). `write` is the disk seam of a test that plays a full one.
 * Returns the sha256 of the bytes written.
 */
export function replaceWhole(
  path: string,
  chunks: Iterable<string>,
  options: {
    mode?: number;
    check?: () => void;
    owner?: { uid: number; gid: number };
    write?: (fd: number, text: string) => void;
  },
): string {
  const { mode = 0o666, check, owner, write = writeAll } = options;
  const temporary = temporaryBeside(path);
  removeStaleTemporaries(path);
  const hash = createHash('sha256');
  const fd = openSync(temporary, NEW_FILE, mode);
  try {
    try {
      for (const chunk of chunks) {
        hash.update(chunk);
        write(fd, chunk);
      }
      if (owner !== undefined) fchownSync(fd, owner.uid, owner.gid);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    check?.();
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return hash.digest('hex');
}
