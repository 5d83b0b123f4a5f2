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
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { fileErrorReason } from './input.js';
import { processRuns, uid } from './processes.js';

/** Created exclusively, never through a symbolic link: a file someone planted fails (EEXIST). */
export const NEW_FILE =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to `fd` (a short write is followed by one for the rest); throws the system
 * error. A descriptor svc was handed may be non-blocking (Node makes its stdout pipe so): a full one
 * (EAGAIN) is waited for; a file never answers so.
 */
export function writeAll(fd: number, text: string | Buffer): void {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

/** A new temporary name beside `path` (`.NAME.PID-HEX`: the pid says whose, removeStaleTemporaries clears a gone one's). */
export function temporaryBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString('hex')}`);
}

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
 */
export function removeStaleTemporaries(path: string): void {
  const me = uid();
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = /^(?:(\d+)-[0-9a-f]{12}|room-(\d+))$/.exec(name.slice(prefix.length));
    const owner = Number(pid?.[1] ?? pid?.[2]);
    if (!Number.isSafeInteger(owner) || owner === process.pid || processRuns(owner)) continue;
    const stale = join(dirname(path), name);
    try {
      const stat = lstatSync(stale);
      if (!stat.isFile() || (me !== undefined && stat.uid !== me)) continue;
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

function streamWord(stat: Stats): string {
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}

/** A path that names a descriptor of this process: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N. */
const NAMED_DESCRIPTOR = new RegExp(
  `^/(?:dev/(stdout|stderr)|dev/fd/(\\d+)|proc/(?:self|${process.pid})/fd/(\\d+))$`,
);

function sameFile(fd: number, stat: Stats): boolean {
  try {
    const open = fstatSync(fd);
    return open.dev === stat.dev && open.ino === stat.ino;
  } catch {
    return false; // not open
  }
}

/**
 * The descriptor of svc's own that `path` is: one it names (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N, when open), or svc's stdout or stderr when `path` is the same pipe, socket or
 * device. Handed to svc by whoever started it (a pipe root made for a container or a cron job,
 * `sudo svc … | jq`, journald's socket), not found at a path: svc writes to it whoever owns it, as
 * it writes its stdout (review17b R17b-5), through the descriptor itself (a socket cannot be
 * opened by name; a file given as stdout keeps its offset and `>>`).
 */
export function ownDescriptor(path: string): number | undefined {
  const named = NAMED_DESCRIPTOR.exec(resolve(path));
  if (named !== null) {
    const fd = named[1] === 'stdout' ? 1 : named[1] === 'stderr' ? 2 : Number(named[2] ?? named[3]);
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat !== undefined && sameFile(fd, stat) ? fd : undefined;
  }
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined || stat.isFile() || stat.isDirectory()) return undefined;
  return [1, 2].find((fd) => sameFile(fd, stat));
}

/** Why svc must not write into `stat` (no regular file), or undefined when it is the user's own. */
function streamProblem(stat: Stats): string | undefined {
  const me = uid();
  if (me === undefined || stat.uid === me || (stat.uid === 0 && stat.isCharacterDevice())) return undefined;
  return `is ${streamWord(stat)} that belongs to another user (uid ${stat.uid})`;
}

const refusedStream = (flag: string, path: string, problem: string) =>
  new UsageError(`${flag} ${path} ${problem}, so svc will not write into it`, {
    code: 'output_owner',
    hint: 'give a path of your own (a file that is not there yet, in a directory only you can write); nothing was written',
  });

/**
 * Whether `path` is something that is no regular file (`/dev/null`, `/dev/stdout`, the user's own
 * named pipe), which svc writes into as it is: renamed over, it would be replaced by a regular
 * file (as root, /dev/null itself). Such a thing that another user owns (their named pipe in a
 * shared directory, their terminal) is refused before anything is written: what svc writes would
 * go to them. A root's device (/dev/null) is the system's, not another user's; svc's own
 * descriptor (ownDescriptor: `-o /dev/stdout`) is svc's whoever made it.
 */
export function writesInto(path: string, flag: string): boolean {
  if (ownDescriptor(path) !== undefined) return true;
  const existing = statSync(path, { throwIfNoEntry: false });
  if (!existing || existing.isFile() || existing.isDirectory()) return false;
  const problem = streamProblem(existing);
  if (problem !== undefined) throw refusedStream(flag, path, problem);
  return true;
}

/**
 * A file a command writes for the user (`svc export -o`, `svc plan --out`): whole or not at all —
 * a temporary file beside it, renamed over it (replaceWhole) — so an interrupted write never
 * leaves half a document behind, and a link or another user's file there is replaced, never
 * written through. `flag` names the option in the error. A file svc knows holds a secret (a
 * webhook URL's `?token=`) is `secret`: created 0600, whatever the umask, as secret files are.
 * A path that is no regular file is written into as it is, and only when it is the user's own
 * (writesInto; checked again on what was opened). Returns whether svc made the file (false: it
 * wrote into a pipe or a device, whose mode is not svc's).
 */
export function writeFileWhole(path: string, text: string, flag: string, secret = false): boolean {
  const descriptor = ownDescriptor(path);
  if (descriptor !== undefined) {
    try {
      writeAll(descriptor, text);
    } catch (error) {
      throw new UsageError(`cannot write ${flag} ${path}: ${fileErrorReason(error, 'it is closed')}`);
    }
    return false;
  }
  if (writesInto(path, flag)) {
    let fd: number | undefined;
    try {
      // Never created here (no O_CREAT): what is opened is what was checked, checked again.
      fd = openSync(path, constants.O_WRONLY | (constants.O_NOCTTY ?? 0));
      const opened = fstatSync(fd);
      const problem = opened.isFile() ? 'was replaced by a regular file' : streamProblem(opened);
      if (problem !== undefined) throw refusedStream(flag, path, problem);
      writeAll(fd, text);
      return false;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot write ${flag} ${path}: ${fileErrorReason(error, 'it cannot be opened')}`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  try {
    replaceWhole(path, [text], secret ? { mode: 0o600 } : {});
    return true;
  } catch (error) {
    throw new UsageError(
      `cannot write ${flag} ${path}: ${fileErrorReason(error, 'its directory does not exist')}`,
    );
  }
}
