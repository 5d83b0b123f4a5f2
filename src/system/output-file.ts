import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { judgeMark, MARK_WORD, markOfWord, markWord, type ProcessMark, uid } from './processes.js';

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

/**
 * A new temporary name beside `path`: `.NAME.MARK-HEX`, MARK this process's (markWord: pid, start,
 * boot, PID namespace), so that removeStaleTemporaries can tell a killed write's from a live one's.
 */
export function temporaryBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${markWord()}-${randomBytes(6).toString('hex')}`);
}

/**
 * The config store's proof of room beside `path` (config/disk.ts): `.NAME.room-MARK`, one per
 * process, judged as a temp file is.
 */
export function roomBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.room-${markWord()}`);
}

/**
 * How old (by its mtime) a temp file whose writer svc cannot judge by pid must be to be taken for
 * a killed write's: an older svc's `NAME.HEX.tmp`, and one of another PID namespace or boot.
 */
const OLD_TEMPORARY_MS = 3600_000;

/** The writer named by a temp file's name (after `.NAME.`), its mark, or undefined if it is no temp file's name. */
function writerOf(rest: string): ProcessMark | undefined {
  const marked = new RegExp(`^(?:(${MARK_WORD})-[0-9a-f]{12}|room-(${MARK_WORD}))$`).exec(rest);
  if (marked) return markOfWord(marked[1] ?? marked[2] ?? '');
  // Sessions 18 to 21 named the writer by its pid alone: `.NAME.PID-HEX`, `.NAME.room-PID`.
  const pid = Number(/^(?:(\d+)-[0-9a-f]{12}|room-(\d+))$/.exec(rest)?.slice(1).find(Boolean));
  return Number.isSafeInteger(pid) && pid > 0 ? { pid } : undefined;
}

/**
 * Removes the temp files a write of `path` killed before its rename left beside it (kill -9, a
 * power cut): temporaryBeside's `.NAME.MARK-HEX`, and the config store's proof of room
 * `.NAME.room-MARK` (roomBeside). Each holds what was written, 0600: every profile's credential,
 * the plan an apply works from, an export. Only those of writers that are gone, and only files
 * the user owns (svc made its own): a file of that name another user owns (beside a link's target,
 * in a directory of theirs) is no copy of the user's and is not svc's to remove; it is left, unsaid
 * (the write's own temp name is random, made exclusively). Best effort: a directory that cannot be
 * read or a file that cannot be removed is left as it is. The one rule for every file svc writes
 * whole (replaceWhole runs it first).
 *
 * Whether its writer is gone is judgeMark's word on the mark in its name (the rule of the
 * journal's lock): of this boot and PID namespace, by its pid and start (a pid now another
 * process's is no writer: its file goes). A mark of another PID namespace (a second container
 * sharing the directory, its svc PID 1) or another boot (another machine on a shared home) says
 * nothing here: its file is taken for a killed write's only once OLD_TEMPORARY_MS older than
 * `fresh`, the mtime of a file just made in the same directory (replaceWhole's own temp). That is
 * safe: a live write changes its temp's mtime with every write and renames it within seconds, and
 * both mtimes are stamped by the one file system (the NFS server's clock, or the kernel's), so no
 * two machines' clocks are compared. Without `fresh` such a file is left.
 *
 * Older names stay readable: `.NAME.PID-HEX` and `.NAME.room-PID` (sessions 18 to 21) are judged by
 * the pid alone, as judgeMark judges an older svc's mark (its mtime the time it was written).
 * Before session 18 writeFileWhole named its temp `NAME.HEX.tmp` (12 hex digits, no pid): whose it
 * is cannot be told, so one is taken for a killed write's only once OLD_TEMPORARY_MS old.
 */
export function removeStaleTemporaries(path: string, fresh?: number): void {
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
    const writer = name.startsWith(prefix) ? writerOf(name.slice(prefix.length)) : undefined;
    if (!oldStyle && writer === undefined) continue;
    const stale = join(dirname(path), name);
    try {
      const stat = lstatSync(stale);
      if (!stat.isFile() || (me !== undefined && stat.uid !== me)) continue;
      const old = (fresh ?? Date.now()) - stat.mtimeMs > OLD_TEMPORARY_MS;
      if (writer !== undefined) {
        // A file of this very process is one of its writes going on (webhooks' captures: several).
        const judged = judgeMark(writer, true, stat.mtimeMs);
        if (judged.runs === true || (judged.runs === undefined && !(fresh !== undefined && old))) continue;
      } else if (!old) continue;
      rmSync(stale, { force: true });
    } catch {
      // gone since, or not the user's to remove: left
    }
  }
}

/**
 * The one way svc writes a file whole (the config store, the plan kept beside a journal, `svc
 * export -o`, `svc plan --out`): `chunks` go to a temporary file beside it (temporaryBeside: its mark
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
  const hash = createHash('sha256');
  let fd: number;
  try {
    fd = openSync(temporary, NEW_FILE, mode);
  } catch (error) {
    removeStaleTemporaries(path);
    throw error;
  }
  try {
    try {
      // Made now: its mtime is the directory's clock's now, against which a temp svc cannot judge by pid is aged.
      removeStaleTemporaries(path, fstatSync(fd).mtimeMs);
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
    try {
      renameSync(temporary, path);
    } catch (error) {
      throw temporaryGone(temporary, error) ?? error;
    }
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return hash.digest('hex');
}

/**
 * A rename that failed because its temp file is gone while its directory is there: removed by
 * another process (a cleaner of the directory; an svc that judged its writer gone), never "no such
 * directory". Nothing was replaced. Undefined for any other failure.
 */
function temporaryGone(temporary: string, error: unknown): Error | undefined {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  try {
    lstatSync(temporary);
    return undefined;
  } catch {
    try {
      lstatSync(dirname(temporary));
    } catch {
      return undefined;
    }
  }
  return new Error(
    `its temporary file ${temporary} was removed by another process before it was put in place; nothing was replaced`,
  );
}
