import { closeSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { isoSeconds } from '../api/time.js';
import { SvcError, UsageError } from '../errors.js';
import { makeDirectories } from '../system/directories.js';
import { processRuns } from '../system/processes.js';
import { type JournalDisk, JournalWriteError, realJournalDisk } from './journal-disk.js';

/**
 * The cross-process lock of a bulk run's journal: `JOURNAL.lock`, created exclusively (O_EXCL)
 * with the holder's pid, host and start time, and removed when the run ends. A second run of the
 * same operation while the first is running would take the journal for its own resume, send the
 * same idempotency keys and count the platform's replayed answers as its own successes; it is
 * refused before it does anything.
 *
 * A lock whose holder is gone (SIGKILL, a crash, a power cut) is recognised at once by its pid
 * on this host (`kill(pid, 0)` says no such process), so the resume that follows a SIGKILL is
 * never blocked. The config store's lock (proper-lockfile, config/lock.ts) tells a dead holder
 * only by an mtime left untouched for 15 s, which would refuse that resume for 15 s; a journal's
 * holder is always on the same host as its journal (the state directory is per user), so the pid
 * says more, sooner. A lock written on another host is never taken over: the message says how
 * to remove it.
 */

/** The locks this process holds: a holder with our own pid that is not among them is a past process. */
const heldHere = new Set<string>();

interface Holder {
  pid: number;
  host: string;
  since: string;
}

/** Takes the lock of `journal` for this process, or says who holds it. Returns its release. */
export function lockJournal(
  journal: string,
  command: string,
  nowMs: number,
  disk: JournalDisk = realJournalDisk,
): () => void {
  const path = `${journal}.lock`;
  const mine: Holder = { pid: process.pid, host: hostname(), since: isoSeconds(nowMs) };
  try {
    makeDirectories(dirname(path), 0o700);
  } catch (error) {
    throw new UsageError(
      `cannot create the journal's directory ${dirname(path)}: ${(error as Error).message}`,
      {
        hint: 'pass --journal PATH in a writable directory, or set SVC_STATE_DIR',
      },
    );
  }
  // Two tries: the second after removing a dead holder's lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number | undefined;
    try {
      fd = disk.open(path, 'wx');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT')
        throw JournalWriteError.of(`the journal's lock ${path}`, error);
      if (code !== 'EEXIST') {
        throw new UsageError(`cannot lock journal ${journal}: ${(error as Error).message}`, {
          hint: 'pass --journal PATH in a writable directory, or set SVC_STATE_DIR',
        });
      }
    }
    if (fd !== undefined) {
      try {
        disk.write(fd, `${JSON.stringify(mine)}\n`);
      } catch (error) {
        // Ours and empty (a full disk): left, it would say a run holds the journal.
        rmSync(path, { force: true });
        throw JournalWriteError.of(`the journal's lock ${path}`, error);
      } finally {
        closeSync(fd);
      }
      heldHere.add(path);
      return () => release(path);
    }
    const holder = readHolder(path);
    if (holder && (holder.host !== mine.host || alive(holder.pid, path))) {
      throw heldBy(holder, command, journal, path, holder.host === mine.host);
    }
    if (!holder) {
      // Unreadable: a holder between its create and its write, or a torn file. Take it as held.
      throw new SvcError('conflict', `another svc ${command} is using its journal ${journal}`, {
        code: 'journal_locked',
        hint: `wait for it to finish; if no svc is running, remove ${path}`,
      });
    }
    removeStale(path, holder);
  }
  throw new SvcError('conflict', `cannot take the lock of journal ${journal}`, {
    code: 'journal_locked',
    hint: `if no svc is running, remove ${path} and run the command again`,
  });
}

function heldBy(holder: Holder, command: string, journal: string, path: string, here: boolean): SvcError {
  const where = here ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.host}`;
  return new SvcError(
    'conflict',
    `another svc ${command} of the same input is running (${where}, since ${holder.since}); nothing was done`,
    {
      code: 'journal_locked',
      hint: here
        ? `wait for it to finish, then run the command again to pick up what is left (journal ${journal})`
        : `wait for it to finish; if it is gone, remove ${path}`,
    },
  );
}

function readHolder(path: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    if (typeof holder.pid === 'number' && typeof holder.host === 'string' && typeof holder.since === 'string')
      return holder as Holder;
  } catch {
    // unreadable: see the caller
  }
  return undefined;
}

/**
 * Whether the lock's holder still runs. Our own pid holds it only if this process took it: a
 * container started again gets the pid its killed predecessor had, and must not wait for itself.
 */
function alive(pid: number, path: string): boolean {
  if (pid === process.pid) return heldHere.has(path);
  return processRuns(pid);
}

/**
 * Removes a dead holder's lock. It is first moved aside (atomic), so of two runs removing the
 * same stale lock only one does; the other then finds the new holder's lock and is refused.
 */
function removeStale(path: string, holder: Holder | undefined): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // already moved by another run: the next create tells who holds it now
  }
  const moved = readHolder(aside);
  if (holder && moved && moved.pid !== holder.pid) {
    // Another run took over between our read and our move: give its lock back.
    renameSync(aside, path);
    return;
  }
  rmSync(aside, { force: true });
}

function release(path: string): void {
  heldHere.delete(path);
  const holder = readHolder(path);
  if (holder && holder.pid !== process.pid) return;
  rmSync(path, { force: true });
}
