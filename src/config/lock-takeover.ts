import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { SvcError } from '../errors.js';
import { judgeMark, MARK_WORD, markOfWord, markWord } from '../system/processes.js';
import { outOfDescriptors } from '../system/system-errors.js';

/**
 * Taking over a config store lock (config/lock.ts) its waiter judged left by a holder that is gone.
 */

/**
 * The file system steps of a take-over that move or make a lock, and make its marker: a seam so
 * that a test can put another waiter's step between two of them (the window of review22c F3), or
 * fail one as a full disk does (review23a F3). svc always uses these.
 */
export const takeOverDisk = { renameSync, mkdirSync, openSync, writeSync };

/** A holder refreshes its lock's mtime every few seconds: one seen untouched this long is gone. */
export const STALE_MS = 15_000;

/** A lock directory (or the take-over marker) as seen: which one (one made since is another) and its mtime. */
export interface Seen {
  ino: number;
  dev: number;
  mtimeMs: number;
  /** When it was made (0 where the file system keeps no birth time). */
  bornMs: number;
}

export function seenLock(lock: string): Seen | undefined {
  try {
    const { ino, dev, mtimeMs, birthtimeMs } = statSync(lock);
    return { ino, dev, mtimeMs, bornMs: birthtimeMs };
  } catch {
    return undefined;
  }
}

export const sameSeen = (a: Seen | undefined, b: Seen | undefined) =>
  a !== undefined && b !== undefined && a.ino === b.ino && a.dev === b.dev && a.mtimeMs === b.mtimeMs;

/**
 * Takes away a lock its waiter judged left by a holder that is gone (`judged`: seen untouched for
 * STALE_MS, or its pid file's holder of this machine ended), so that the waiter's next mkdir can
 * lock. Its mtime is compared only with itself, never with this machine's clock: a home on NFS
 * shared with a machine whose clock is 20 s off made a live holder's lock look stale, and a dead
 * one's fresh for ever, when proper-lockfile judged it by `Date.now()` (two writers of
 * credentials.json at once then lose a refresh token, which revokes the session's family).
 *
 * Take-overs are made one at a time, under the take-over marker (claimMarker), and each looks at
 * the lock again under it (`stillGone` judges it again) before moving it: of waiters that judged
 * one dead lock, the first takes it over and the others find it gone or another (review22c F3:
 * without the marker, a second waiter's move took the lock the first had just made). Returns
 * false when another take-over holds the marker (judge again at the next poll), else true.
 */
export function takeOverStale(
  lock: string,
  judged: Seen,
  stillGone: (now: Seen) => boolean = () => true,
): boolean {
  const marker = claimMarker(lock);
  if (marker === undefined) return false;
  try {
    const seen = seenLock(lock);
    if (seen === undefined || !sameSeen(seen, judged) || !stillGone(seen)) return true;
    const aside = `${lock}.${process.pid}.stale`;
    try {
      takeOverDisk.renameSync(lock, aside);
    } catch {
      return true; // gone already (its holder let go): the next mkdir tells
    }
    if (!sameSeen(seenLock(aside), judged)) {
      giveBack(lock, aside);
      return true;
    }
    // The gone holder's pid file: left, it would name the lock made next until its holder writes its own.
    rmSync(`${lock}-pid`, { force: true });
    rmSync(aside, { recursive: true, force: true });
    return true;
  } finally {
    dropMarker(marker);
  }
}

/**
 * A lock moved that is not the one judged: under the marker no other take-over moves locks, so its
 * holder let the judged one go and another waiter locked, both in the instant between the look and
 * the move (or a process that takes no marker did: an svc before session 23, a person). It is put
 * back whole: first an empty directory of this take-over's own in its place (a mkdir never
 * replaces a lock another waiter made meanwhile), then the moved lock renamed onto it (a rename
 * onto an empty directory replaces it), so its inode and times are as its holder left them: its
 * refresh finds the mtime its own (proper-lockfile takes any other as compromised, stops refreshing
 * and leaves the lock behind at its release: review22c F3) and its pid file names it.
 */
function giveBack(lock: string, aside: string): void {
  try {
    takeOverDisk.mkdirSync(lock);
  } catch {
    // A third waiter locked between the move and now: two holders, the window RELIABILITY names.
    rmSync(aside, { recursive: true, force: true });
    return;
  }
  try {
    takeOverDisk.renameSync(aside, lock);
  } catch {
    rmSync(aside, { recursive: true, force: true });
  }
}

/** The marker of a take-over in progress, beside the lock, and the waiter's watch of one left. */
const markerOf = (lock: string) => `${lock}.takeover`;
const watchedMarkers = new Map<string, { seen: Seen; since: number }>();
const MARKER_TEXT = new RegExp(`^(${MARK_WORD})\n$`);

/**
 * Makes the take-over marker, a file made only if none is there (O_EXCL) holding this process's
 * mark (when the disk has room for it: the marker is the file, the mark is best effort), and
 * returns what it is; undefined when another take-over holds it; one that cannot be made throws. A marker is held for a
 * few system calls, so one found is another's in progress unless its taker is gone: its mark
 * whole, of this boot and namespace, and that process ended (judgeMark); or, where the mark does
 * not tell (another machine on a shared home, a file left empty by a taker killed before it
 * wrote or on a full disk), the same marker seen for STALE_MS of this waiter's own watching. One
 * whose taker is known to run is never taken (review23a F5). A marker left is
 * removed as a stale lock is, moved aside first; one that is not the one judged is given back by a
 * link, which never replaces a marker made meanwhile.
 */
function claimMarker(lock: string): { path: string; seen: Seen } | undefined {
  const path = markerOf(lock);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = takeOverDisk.openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw noMarker(lock, error as Error);
      if (!markerLeft(path)) return undefined;
      continue;
    }
    try {
      try {
        takeOverDisk.writeSync(fd, `${markWord()}\n`);
      } catch {
        // A full disk: the marker is made, its mark is not; kept empty, as a taker killed before
        // it wrote leaves it (others watch it STALE_MS), and dropped after (review23a F3).
      }
      const { ino, dev, mtimeMs, birthtimeMs } = fstatSync(fd);
      watchedMarkers.delete(path);
      return { path, seen: { ino, dev, mtimeMs, bornMs: birthtimeMs } };
    } finally {
      closeSync(fd);
    }
  }
  return undefined;
}

/**
 * A marker that cannot be made, other than one there already (no inodes left, a read-only or
 * unwritable directory, no descriptor left): the lock it would take over cannot be made either,
 * so svc says why now, not after 40 s of waiting as if another svc held it (review23a F3).
 */
function noMarker(lock: string, error: Error): SvcError {
  return storeWriteError(
    `cannot take over ${lock}, which its holder left (untouched for ${STALE_MS / 1000} s, or its process gone): cannot make ${markerOf(lock)}`,
    error,
  );
}

/**
 * The config store's file, lock or marker not made: `what`, then the system's words. A full or
 * read-only disk is not bad input: exit 1, as a failed write of stdout is. Out of descriptors says
 * the limit and its fix, not the disk's (review23d L2). One rule for the store (store.ts) and its
 * lock (lock.ts).
 */
export function storeWriteError(what: string, error: unknown): SvcError {
  const descriptors = outOfDescriptors(error);
  return new SvcError('failure', `${what}: ${descriptors ?? (error as Error).message}`, {
    code: 'config_write',
    hint:
      descriptors === undefined
        ? 'make room on its disk (or make it writable), then run the command again; nothing was changed'
        : 'nothing was changed',
  });
}

/** Whether the marker at `path` was left by a taker that is gone, and is now removed. */
function markerLeft(path: string): boolean {
  const seen = seenLock(path);
  if (seen === undefined) return true; // let go meanwhile
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // unreadable (another user's): its mark does not tell
  }
  if (!sameSeen(seenLock(path), seen)) return false;
  const mark = markOfWord(MARKER_TEXT.exec(text)?.[1] ?? '');
  const whole = mark?.boot !== undefined && mark.pidns !== undefined && mark.start !== undefined;
  // `ours`: this process's own marker is a take-over of its own in progress (a test's interleaving).
  const judged = whole ? judgeMark(mark, true) : undefined;
  // A taker known to run is in its take-over, however long (stopped by Ctrl-Z, a paused VM):
  // taken, two take-overs would run at once (review23a F5). The waiter's own 40 s bound ends the wait.
  if (judged?.runs === true && judged.sure) return false;
  if (!(judged?.runs === false && judged.sure)) {
    const watch = watchedMarkers.get(path);
    if (watch === undefined || !sameSeen(watch.seen, seen)) {
      watchedMarkers.set(path, { seen, since: Date.now() });
      return false;
    }
    if (Date.now() - watch.since < STALE_MS) return false;
  }
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return true;
  }
  if (!sameSeen(seenLock(aside), seen)) {
    try {
      linkSync(aside, path);
    } catch {
      // another marker made meanwhile
    }
    rmSync(aside, { force: true });
    return false;
  }
  rmSync(aside, { force: true });
  watchedMarkers.delete(path);
  return true;
}

/** Removes this take-over's marker, unless it is no longer the one made (taken as left meanwhile). */
function dropMarker(marker: { path: string; seen: Seen }): void {
  if (sameSeen(seenLock(marker.path), marker.seen)) rmSync(marker.path, { force: true });
}
