import { AsyncLocalStorage } from 'node:async_hooks';
import { lchownSync, readFileSync, rmSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, SvcError } from '../errors.js';
import { writeOwnFile } from '../system/output-file.js';
import { judgeMark, MARK_WORD, markOfWord, markWord } from '../system/processes.js';
import { type Seen, STALE_MS, sameSeen, seenLock, storeWriteError, takeOverStale } from './lock-takeover.js';
import { ensurePrivateDir, heirOf } from './store-directory.js';

/**
 * A cross-process lock on one file of the config directory (proper-lockfile: an atomic mkdir of
 * `FILE.lock`, whose mtime the holder refreshes every few seconds, so a lock left by a crashed
 * process is taken over once it is stale). Stale is judged without a clock of another machine
 * (takeOverStale): proper-lockfile's own judgement (the lock's mtime against this machine's
 * clock) is turned off. Every write of config.json and credentials.json
 * runs under the lock of its file and re-reads the file once it holds it, so parallel svc
 * processes never lose each other's writes; an OAuth refresh holds the credentials lock for
 * its whole read-refresh-write, so N processes with an expired token make one refresh.
 *
 * Re-entrant within one async call chain (AsyncLocalStorage): a write inside a refresh that
 * already holds the lock does not wait for itself.
 */

/**
 * A holder refreshes the lock's mtime every UPDATE_MS; a lock a waiter has seen untouched for
 * STALE_MS (its own time, watching) is abandoned.
 */
const UPDATE_MS = 3_000;
/** How long a writer waits for another process's lock. */
const LOCK_WAIT_MS = 40_000;
/** A wait longer than this is said once (`waiting`), naming the holder: a short one is everyday. */
const SAY_WAIT_MS = 1_000;

/**
 * The holder's pid, in `FILE.lock-pid` beside the lock (the lock directory itself must stay
 * empty: proper-lockfile removes it with rmdir). A process killed while holding the lock leaves
 * both; the waiter names that pid, so a 15-s wait is never silent (crash14 6). The pid is written
 * as its mark (markWord: pid, start, boot, PID namespace; an older svc reads the pid before the
 * first `-`) with the lock directory's inode: a holder of this boot and namespace that is gone
 * (killed) is known at once by judgeMark, as the journal's lock knows it, and its lock taken over
 * without the 15 s watch; any other (another container or boot, an older svc's bare pid, a pid
 * file of another lock) is watched.
 */
const pidFile = (target: string) => `${target}.lock-pid`;

/** The targets this process holds the lock of: a holder with our own mark is alive only if among them. */
const heldHere = new Set<string>();

/**
 * Whether the pid file names a holder of this very lock (`seen`) that is sure to be gone: its mark
 * whole (pid, start, boot and PID namespace: a mark with a part unknown, as svc writes it where
 * there is no /proc, may be another machine's on a shared home, and is watched), of this boot and
 * namespace, its process ended; the lock's inode its; and the pid file written since the lock was
 * made (the lock's birth time and the pid file's mtime, both of this file system: an inode reused
 * by a lock made after the pid file, as an older svc's take-over leaves it, is not that holder's).
 */
function holderGone(target: string, seen: Seen): boolean {
  let text: string;
  let written: number;
  try {
    text = readFileSync(pidFile(target), 'utf8');
    written = statSync(pidFile(target)).mtimeMs;
  } catch {
    return false;
  }
  const word = new RegExp(`^(${MARK_WORD}) ino=(\\d+)\n$`).exec(text);
  if (word === null || Number(word[2]) !== seen.ino) return false;
  if (!(seen.bornMs > 0 && written >= seen.bornMs)) return false;
  const mark = markOfWord(word[1]!);
  if (mark?.boot === undefined || mark.pidns === undefined || mark.start === undefined) return false;
  const judged = judgeMark(mark, heldHere.has(target));
  return judged.runs === false && judged.sure;
}

function holderPid(target: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidFile(target), 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function waitNote(target: string): string {
  const pid = holderPid(target);
  return (
    `waiting for the lock on ${target}, held by ${pid === undefined ? 'another svc process' : `svc process ${pid}`} ` +
    `(${target}.lock); a lock left by a stopped svc is taken over once untouched for ${STALE_MS / 1000} s`
  );
}

/** proper-lockfile's options for every lock of the store (exported for the take-over's tests). */
export const LOCK_OPTIONS = {
  realpath: false,
  // Never stale by this machine's clock (takeOverStale judges it); the holder still refreshes every UPDATE_MS.
  stale: Number.MAX_SAFE_INTEGER,
  update: UPDATE_MS,
  retries: 0,
  // A lock taken over as stale while held: the work is short and the write re-reads, so go on.
  onCompromised: () => {},
};

const held = new AsyncLocalStorage<ReadonlySet<string>>();

export async function withFileLock<T>(
  dir: string,
  target: string,
  work: () => Promise<T>,
  waiting?: (message: string) => void,
  /** The pause between polls (a test gives one that does not wait on a clock it fakes). */
  pause: (ms: number) => Promise<unknown> = sleep,
): Promise<T> {
  const holding = held.getStore();
  if (holding?.has(target)) return work();
  try {
    ensurePrivateDir(dir, waiting);
  } catch (error) {
    if (error instanceof ConfigError) throw error; // the store's rule refused it (exit 2)
    throw new ConfigError(`cannot create config directory ${dir}: ${(error as Error).message}`, {
      hint: 'set SVC_CONFIG_DIR to a writable directory',
    });
  }
  // Loaded only when something is written.
  const lockfile = (await import('proper-lockfile')).default;
  // Another holder is waited for, up to ~40 s (longer than one token request with its retries);
  // any other failure (a missing or read-only directory) is reported at once. proper-lockfile's
  // own retries would retry every error for the whole 40 s. This machine's clock measures only
  // this wait and how long the lock has been watched, never the lock's age.
  const started = Date.now();
  const deadline = started + LOCK_WAIT_MS;
  let said = false;
  let delay = 10;
  let watched: { lock: Seen; since: number } | undefined;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await lockfile.lock(target, LOCK_OPTIONS);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ELOCKED') throw storeWriteError(`cannot lock ${target}`, error);
      // A holder of this machine known gone (its pid file), or the same lock with the same mtime
      // since the watch began: untouched for that long. Taken over when no other take-over is in
      // progress (takeOverStale's marker), else judged again at the next poll.
      const lock = `${target}.lock`;
      const seen = seenLock(lock);
      if (seen !== undefined && holderGone(target, seen)) {
        if (takeOverStale(lock, seen, (now) => holderGone(target, now))) {
          watched = undefined;
          continue;
        }
      } else if (watched === undefined || !sameSeen(seen, watched.lock)) {
        watched = seen && { lock: seen, since: Date.now() };
      } else if (Date.now() - watched.since >= STALE_MS && takeOverStale(lock, watched.lock)) {
        watched = undefined;
        continue;
      }
      if (Date.now() >= deadline) {
        throw new SvcError('failure', `${target} is locked by another svc process`, {
          code: 'config_locked',
          hint: `try again; if no svc is running, remove ${target}.lock`,
        });
      }
      if (!said && Date.now() - started >= SAY_WAIT_MS) {
        said = true;
        waiting?.(waitNote(target));
      }
      await pause(delay * (0.5 + Math.random()));
      delay = Math.min(250, delay * 1.25);
    }
  }
  // Run as root in a directory of $HOME's owner, the lock and its pid file are given to them
  // (heirOf): one left by a root run that was killed is theirs to take over, update and remove.
  const heir = heirOf(dir);
  try {
    if (heir !== undefined) lchownSync(`${target}.lock`, heir.uid, heir.gid);
    writeOwnFile(pidFile(target), `${markWord()} ino=${statSync(`${target}.lock`).ino}\n`, 0o600, heir);
  } catch {
    // Only a waiter's message names it: the lock itself is held.
  }
  heldHere.add(target);
  try {
    return await held.run(new Set([...(holding ?? []), target]), work);
  } finally {
    heldHere.delete(target);
    rmSync(pidFile(target), { force: true });
    await release().catch(() => {});
  }
}
