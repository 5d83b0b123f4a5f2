import { mkdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';

/**
 * Taking over a config store lock (config/lock.ts) its waiter judged left by a holder that is gone.
 */

/**
 * The file system steps of a take-over that move or make a lock: a seam so that a test can put
 * another waiter's step between two of them (the window of review22c F3). svc always uses these.
 */
export const takeOverDisk = { renameSync, mkdirSync };

/** The lock directory as seen: which one (a lock made since is another) and its mtime. */
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
 * Takes away a lock its waiter saw untouched for STALE_MS (`judged`): its holder refreshes it
 * every UPDATE_MS while it runs, so it is gone (killed, its machine down). Its mtime is compared
 * only with itself, never with this machine's clock: a home on NFS shared with a machine whose
 * clock is 20 s off made a live holder's lock look stale, and a dead one's fresh for ever, when
 * proper-lockfile judged it by `Date.now()` (two writers of credentials.json at once then lose a
 * refresh token, which revokes the session's family). It is first moved aside (atomic), so of two
 * waiters taking over one stale lock only one does; one that is not the lock judged (taken and
 * refreshed since) is put back.
 */
export function takeOverStale(lock: string, judged: Seen): void {
  // Looked at again just before the move: a lock taken over and made anew since is not moved.
  if (!sameSeen(seenLock(lock), judged)) return;
  const aside = `${lock}.${process.pid}.stale`;
  try {
    takeOverDisk.renameSync(lock, aside);
  } catch {
    return; // gone already, or moved by another waiter: the next mkdir tells
  }
  if (!sameSeen(seenLock(aside), judged)) {
    // Not the lock judged (made and refreshed in the instant between): given back by a mkdir, which,
    // unlike a rename onto an empty directory, never replaces a lock another waiter made meanwhile.
    try {
      takeOverDisk.mkdirSync(lock);
      // With the moved lock's times: its holder's refresh checks the mtime is its own, and would
      // otherwise take the lock as compromised, stop refreshing it, and leave it behind.
      const moved = statSync(aside);
      utimesSync(lock, moved.atime, moved.mtime);
    } catch {
      // another lock there now: its holder is the one that goes on
    }
    rmSync(aside, { recursive: true, force: true });
    return;
  }
  // The gone holder's pid file: left, it would name the lock made next until its holder writes its own.
  rmSync(`${lock}-pid`, { force: true });
  rmSync(aside, { recursive: true, force: true });
}
