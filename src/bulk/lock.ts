// Past 300 lines on purpose: taking, refreshing, watching and releasing the lock share its file
// descriptor and mark, and each refusal's words name what svc saw; split, they would pass both around.
import {
  closeSync,
  existsSync,
  fstatSync,
  futimesSync,
  linkSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { isoSeconds } from '../api/time.js';
import { rootLeft } from '../config/root-left.js';
import { makeStoreDirectories } from '../config/store-directory.js';
import { InterruptedError, SvcError, UsageError } from '../errors.js';
import { realSleep, type Sleep } from '../system/clock.js';
import { judgeMark, type ProcessMark, thisProcess } from '../system/processes.js';
import { pathWord } from '../system/shell-words.js';
import { type JournalDisk, JournalWriteError, realJournalDisk } from './journal-disk.js';
import { journalPathFix, journalPathReason } from './journal-path.js';

/**
 * The cross-process lock of a bulk run's journal: `JOURNAL.lock`, created exclusively (O_EXCL)
 * with the holder's mark (pid, boot, PID namespace and start: system/processes.ts), host and start
 * time, and removed when the run ends. A second run of the same operation while the first is
 * running would take the journal for its own resume, send the same idempotency keys and count the
 * platform's replayed answers as its own successes; it is refused before it does anything.
 *
 * Whether the holder still runs (judgeMark, the one rule for every file svc names its holder in):
 * - its mark is of this boot and PID namespace: by its pid and start, at once. A holder gone
 *   (SIGKILL, a crash) is recognised at once, so the resume that follows a SIGKILL is never
 *   blocked; a pid now another process's (reused after a reboot, attack21 F7) is no holder.
 * - of another PID namespace (two containers sharing a state directory, one host name, svc PID 1
 *   in each: attack21 F10) or another boot: a pid says nothing there, so the holder refreshes the
 *   lock's mtime every BEAT_MS while it runs (its fd kept open: futimes), and such a lock is a dead
 *   holder's only once svc itself sees it unchanged over WATCH_MS (two beats and a second): it
 *   reads the lock, waits saying so (Ctrl-C stops the wait, nothing done), and reads it again. The
 *   mtime is only compared with itself, never with this machine's clock: "another boot" may be
 *   another machine of the same host name, whose clock is its own (review21b R21b-1). A heartbeat
 *   alone would have held up every resume after a SIGKILL, which the pid avoids where it can judge.
 * - an older svc's lock (pid, host, since: no mark) is judged by its pid as that svc did, and a
 *   pid that runs then is named with the lock file to remove if it is not svc. Node has no flock.
 * - an empty or torn lock (its maker killed between its create and its write): watched as above;
 *   its maker only stopped meanwhile finds, once it has written it, that the file at the path is
 *   no longer its own, and is refused (lockSeen). A lock moved aside that is not the one judged is
 *   given back by a link, never over a lock a third run made while it was aside (removeStale);
 *   where there are no hard links, by a rename when the path is free (that window reopened there).
 *   What remains (review24b M1, run2): a taker stopped between its watch and its move (a frozen
 *   container, a hung disk) moves aside the lock its maker, stopped over WATCH_MS before writing,
 *   wrote and now runs under; a third run locking in that instant (between two system calls)
 *   runs too, and the maker's lock is then not put back. The maker checks before each item it
 *   starts that its lock is still its own (lockLost) and stops there (exit 6), so the two overlap
 *   by the items the maker has in flight then (at most --concurrency). Node has no flock to close it.
 * A lock written on another host is never taken over: the message says how to remove it (two
 * hosts' clocks make its mtime no proof).
 */

/** The holder refreshes its lock's mtime every BEAT_MS; a lock svc cannot judge by pid is dead once seen untouched for WATCH_MS. */
const BEAT_MS = 5_000;
export const WATCH_MS = 2 * BEAT_MS + 1_000;

/** How svc watches a lock it cannot judge by pid: its wait (Ctrl-C's signal stops it) and its words on stderr. */
export interface LockWatch {
  sleep: Sleep;
  signal?: AbortSignal;
  say(line: string): void;
  /**
   * The holders (markOf) seen dead by watching a lock of theirs unchanged for WATCH_MS, shared by
   * the locks of one run: a run holds two (its journal's and the older path's: operation.ts), each
   * refreshed while it runs, so the second lock of a holder seen dead at the first is not watched
   * again (review23e L2: a resume after a kill in another namespace waited 22 s, the second time
   * naming a lock the user never saw).
   */
  dead?: Set<string>;
}

const realWatch: LockWatch = { sleep: realSleep, say: (line) => process.stderr.write(`${line}\n`) };

/**
 * Unreadable locks this process watched and saw unchanged over WATCH_MS (path → rawKey): their
 * makers are dead. olderRunHolding does not take one for a running earlier svc, and lockJournal
 * takes one over without watching it again (watchUnreadableLock: one wait for a run).
 */
const seenDead = new Map<string, string>();
const rawKey = (raw: Raw) => `${raw.mtimeMs}\n${raw.text}`;
const deadAt = (path: string, raw: Raw) => seenDead.get(path) === rawKey(raw);

/** The locks this process holds (path → the fd it made it on): a holder with our own mark that is not among them is a past process. */
const heldHere = new Map<string, number>();

/** A holder's process and run, as its lock names them: two locks of one run are of one mark. */
function markOf(holder: Holder): string {
  const { host, pid, boot, pidns, start, since } = holder;
  return JSON.stringify([host, pid, boot, pidns, start, since]);
}

interface Holder extends ProcessMark {
  host: string;
  since: string;
  /** Seconds between the refreshes of the lock's mtime; absent in an older svc's lock. */
  beat?: number;
  /** The holder's command words and operation (bulk/operation.ts ownerOf); absent in an older svc's lock. */
  command?: string;
  operation?: string;
}

/** A lock's bytes (to tell it from a lock made since) and its mtime. */
interface Raw {
  text: string;
  mtimeMs: number;
}

/** The lock as read: its holder, its bytes and its mtime. */
interface Read extends Raw {
  holder: Holder;
}

/**
 * Takes the lock of `journal` for this process, or says who holds it. Returns its release.
 * `older`: the journal is where an svc before session 16 keeps this command's run (its name the
 * command's hash, with no caller: runOlderPath in operation.ts). That svc reads this lock as its
 * own (pid, host, since; the rest it ignores), so while this run holds it such an svc is refused
 * instead of running the same command beside it (attack23b F1). There, a live older svc's lock
 * is its run of this command (refused, in olderRunRunning's words), and another caller's run of
 * this svc holding it is no conflict: this run goes on without it (nothing released at its end).
 */
export async function lockJournal(
  journal: string,
  run: { command: string; operation: string },
  nowMs: number,
  disk: JournalDisk = realJournalDisk,
  watch: LockWatch = realWatch,
  older = false,
): Promise<() => void> {
  const path = `${journal}.lock`;
  const mine: Holder = {
    ...thisProcess(),
    host: hostname(),
    since: isoSeconds(nowMs),
    beat: BEAT_MS / 1000,
    ...run,
  };
  try {
    makeStoreDirectories(dirname(path));
  } catch (error) {
    throw new UsageError(
      `cannot create the journal's directory ${dirname(path)}: ${journalPathReason(error)}`,
      { hint: `${journalPathFix(error)}; svc changed nothing` },
    );
  }
  // Two tries: the second after removing a dead holder's lock (or after a watched lock went).
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number | undefined;
    try {
      fd = disk.open(path, 'wx');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT')
        throw JournalWriteError.of(`the journal's lock ${path}`, error);
      if (code !== 'EEXIST') {
        // A journals directory an older `sudo -E svc apply` left root's: said as the store's is.
        throw (
          rootLeft(path, error, 'write') ??
          new UsageError(`cannot lock journal ${journal}: ${journalPathReason(error)}`, {
            hint: `${journalPathFix(error)}; svc changed nothing`,
          })
        );
      }
    }
    if (fd !== undefined) {
      try {
        disk.write(fd, `${JSON.stringify(mine)}\n`);
      } catch (error) {
        // Ours and empty (a full disk): left, it would say a run holds the journal.
        closeSync(fd);
        rmSync(path, { force: true });
        throw JournalWriteError.of(`the journal's lock ${path}`, error);
      }
      // Still the file at `path`? A maker stopped (SIGSTOP, a frozen container) for WATCH_MS
      // between its create and its write saw its empty lock taken over: it must not run beside.
      if (lockSeen(path, fd) !== 'ours') {
        closeSync(fd);
        throw takenWhileWriting(path);
      }
      return hold(path, fd);
    }
    const read = readLock(path);
    if (!read) {
      // Unreadable: a holder between its create and its write, or a torn file. One its maker was
      // killed before writing would refuse every run for good (review23e L1, at the older path;
      // at a run's own journal, the user had to remove it). Watched as a lock of another namespace
      // is: written or removed meanwhile, judged again; unchanged, taken over. A maker only stopped
      // meanwhile finds its lock no longer at `path` once it has written it, and is refused (lockSeen).
      const raw = readRaw(path);
      if (raw === undefined) continue; // removed since
      if (!deadAt(path, raw)) {
        const seen = await watched(path, raw, 'unreadable', watch);
        if (seen === 'gone') continue;
        if (seen !== undefined) throw unreadableHeld(path);
      }
      removeStale(path, raw);
      continue;
    }
    const held = judge(read, mine, path);
    if (older && held !== undefined) {
      if (read.holder.operation === undefined) throw olderRunRunning(journal, read.holder, held);
      if (read.holder.operation !== mine.operation) return () => {};
    }
    if (held !== undefined && 'watch' in held && !watch.dead?.has(markOf(read.holder))) {
      const seen = await watched(path, read, held.watch, watch);
      if (seen === 'gone') continue;
      if (seen !== undefined) throw heldBy(read.holder, mine, journal, seen);
      watch.dead?.add(markOf(read.holder));
    } else if (held !== undefined && !('watch' in held)) throw heldBy(read.holder, mine, journal, held);
    removeStale(path, read);
  }
  throw new SvcError('conflict', `cannot take the lock of journal ${journal}`, {
    code: 'journal_locked',
    hint: `if no svc is running, remove ${path} and run the command again`,
  });
}

/**
 * Holds the lock made on `fd`: its mtime refreshed every BEAT_MS through the fd (a lock moved
 * away as stale is not the one refreshed: the fd follows the file it made). The release removes
 * the lock only if it is still that file (never another run's lock that took its place).
 */
function hold(path: string, fd: number): () => void {
  heldHere.set(path, fd);
  const beat = setInterval(() => {
    try {
      const now = new Date();
      futimesSync(fd, now, now);
    } catch {
      // A disk gone read-only: the lock stays as it was, and is judged by its mtime only from another namespace.
    }
  }, BEAT_MS);
  beat.unref();
  return () => {
    clearInterval(beat);
    heldHere.delete(path);
    try {
      if (lockSeen(path, fd) === 'ours') rmSync(path, { force: true });
    } catch {
      // gone already
    } finally {
      closeSync(fd);
    }
  };
}

/**
 * The refusal of a run whose lock of `journal` is no longer the file it made (moved aside by a
 * take-over while this process was stopped: the window the header names), checked before each
 * item it starts; undefined while it is still its own (or it holds none: a dry run). A lock
 * removed, or one that cannot be checked, stops the run too, said as such (lockSeen).
 */
export function lockLost(journal: string): SvcError | undefined {
  const path = `${journal}.lock`;
  const fd = heldHere.get(path);
  if (fd === undefined) return undefined;
  const seen = lockSeen(path, fd);
  if (seen === 'ours') return undefined;
  // Said as seen (review24e L1): only another file at the path is a take-over.
  if (seen === 'removed')
    return new SvcError(
      'conflict',
      `the lock ${path} was removed while this run ran (no svc run removes a lock it did not make: by hand, or a cleaner), so another run of this command could start beside it; the rows not started were not sent`,
      {
        code: 'journal_locked',
        hint: `once no other svc run of this command is running, run the command again to pick up what is left (journal ${journal})`,
      },
    );
  if (seen !== 'other')
    return new SvcError(
      'conflict',
      `the lock ${path} cannot be checked (${seen}), so svc cannot tell that it is still this run's; the rows not started were not sent`,
      {
        code: 'journal_locked',
        hint: `once ${path} can be read again (its directory's permissions, its disk or network share), run the command again to pick up what is left (journal ${journal})`,
      },
    );
  return new SvcError(
    'conflict',
    `the lock ${path} is no longer this run's: another svc run took it over while this one was stopped (for over ${WATCH_MS / 1000} s, or between two steps of its own take-over); the rows not started were not sent`,
    {
      code: 'journal_locked',
      hint: `wait for that run to finish, then run the command again to pick up what is left (journal ${journal})`,
    },
  );
}

/** How the lock's holder is held to run: undefined when it does not (its lock is stale). */
interface Held {
  /** Where, after its pid: `on HOST`, `in another PID namespace …`. */
  where?: string;
  /** The last words of the hint: how to tell that it is gone, and the file to remove then. */
  gone?: string;
  /** The holder runs here, judged sure: a run of this host whose end is worth waiting for. */
  here: boolean;
}

function judge(read: Read, mine: Holder, path: string): Held | Watch | undefined {
  const { holder } = read;
  if (holder.host !== mine.host)
    return { where: `on ${holder.host}`, gone: `if it is gone, remove ${path}`, here: false };
  const judged = judgeMark(holder, heldHere.has(path), Date.parse(holder.since));
  if (judged.runs === undefined) return elsewhere(read, judged.why, path);
  if (!judged.runs) return undefined;
  // A pid that runs, judged by the pid alone (an older svc's lock, no /proc): it may be another program's now.
  const older = holder.beat === undefined ? " (the lock is an older svc's: it names the pid alone)" : '';
  return judged.sure
    ? { here: true }
    : { here: true, gone: `if pid ${holder.pid} is not svc${older}, remove ${path}` };
}

/**
 * A lock of another PID namespace or boot: its refreshes say whether its run goes on, seen by
 * watching (`watch`); an older svc's lock (no refreshes) is held until a human removes it.
 */
function elsewhere(read: Read, why: 'namespace' | 'boot', path: string): Held | Watch {
  if (read.holder.beat !== undefined) return { watch: why };
  return { ...where(read.holder, why), gone: `if no svc is running there, remove ${path}` };
}

/** A lock to watch, and why its pid cannot say. */
interface Watch {
  watch: 'namespace' | 'boot';
}

function where(holder: Holder, why: 'namespace' | 'boot'): Held {
  return {
    where:
      why === 'namespace'
        ? 'in another PID namespace (another container)'
        : `of another boot of this machine, or of another machine named ${holder.host}`,
    here: false,
  };
}

/**
 * Watches a lock svc cannot judge by pid for WATCH_MS: refreshed (or replaced) meanwhile, its run
 * goes on (how it is held is returned); unchanged, its run is dead (undefined); removed, 'gone'.
 * Only the lock's own mtimes are compared: no clock of another machine is read against ours.
 */
async function watched(
  path: string,
  read: Raw,
  why: 'namespace' | 'boot' | 'unreadable',
  watch: LockWatch,
): Promise<Held | 'gone' | undefined> {
  watch.say(
    why === 'unreadable'
      ? `waiting ${WATCH_MS / 1000} s to see whether ${path}, which cannot be read, is its maker's, still being written`
      : `waiting ${WATCH_MS / 1000} s to see whether the run holding ${path} is alive`,
  );
  try {
    await watch.sleep(WATCH_MS, watch.signal);
  } catch (error) {
    if (watch.signal?.aborted)
      throw new InterruptedError(`interrupted while watching the journal's lock ${path}; nothing was done`);
    throw error;
  }
  const again = readRaw(path);
  // Removed, or another lock now (its run ended, another took it; its maker wrote it): judged again from the start.
  if (again === undefined || again.text !== read.text) return 'gone';
  if (again.mtimeMs === read.mtimeMs) return undefined;
  if (why === 'unreadable') return { here: false };
  return {
    ...where((read as Read).holder, why),
    gone: `its run refreshed it while svc watched it for ${WATCH_MS / 1000} s; if no svc is running there, remove ${path}`,
  };
}

/**
 * Who holds the journal, as far as its lock says. Only a holder of the same operation is "the same
 * input": another file given the same --journal (a CI matrix, `xargs -P`) is told to pass another
 * one (attack20 F11), not to wait and run again "to pick up what is left" of a run that is not its.
 */
function heldBy(holder: Holder, mine: Holder, journal: string, held: Held): SvcError {
  const where = `pid ${holder.pid}${held.where ? ` ${held.where}` : ''}, since ${holder.since}`;
  const gone = held.gone ? `; ${held.gone}` : '';
  if (holder.operation === mine.operation)
    return new SvcError(
      'conflict',
      `another svc ${mine.command} of the same input is running (${where}); nothing was done`,
      {
        code: 'journal_locked',
        hint: held.here
          ? `wait for it to finish, then run the command again to pick up what is left (journal ${journal})${gone}`
          : `wait for it to finish${gone}`,
      },
    );
  const whose =
    holder.operation === undefined
      ? { who: 'another svc run', what: 'its input not known (an older svc)' }
      : {
          who: `another svc ${holder.command ?? 'run'}`,
          what: 'for another operation (another file, flags, profile, credential or tenant)',
        };
  return new SvcError(
    'conflict',
    `journal ${journal} is in use by ${whose.who} (${where}), ${whose.what}; nothing was done`,
    {
      code: 'journal_locked',
      hint: `pass another --journal (one journal per operation), or wait for that run to finish${gone}`,
    },
  );
}

/**
 * Watches the lock of an earlier svc's journal (`journal`) that cannot be read (its maker killed
 * between making and writing it, or still writing it), as lockJournal does, before anything reads
 * that journal: a dry run then judges it as the real run does (s23: the dry run said exit 6 "its
 * lock unreadable" where the real run, having taken that lock over, said exit 2). Seen unchanged,
 * its maker is dead (seenDead); written meanwhile, it is judged as it is then; rewritten and
 * still unreadable, watched again, at most twice in all, as lockJournal does.
 */
export async function watchUnreadableLock(journal: string, watch: LockWatch = realWatch): Promise<void> {
  const path = `${journal}.lock`;
  if (heldHere.has(path)) return;
  // Two tries, as lockJournal's: rewritten during the wait and still unreadable, it is watched
  // again (review24b M2: the dry run watched once and said exit 6 where the real run, watching
  // again and taking it over, said exit 2). Refreshed with the same bytes, it is held, as there.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (readLock(path) !== undefined) return;
    const raw = readRaw(path);
    if (raw === undefined || deadAt(path, raw)) return;
    const seen = await watched(path, raw, 'unreadable', watch);
    if (seen === undefined) seenDead.set(path, rawKey(raw));
    if (seen !== 'gone') return;
  }
}

/**
 * The run of an svc before session 16 (its journal names no caller) that still holds its journal's
 * lock, judged as lockJournal judges an older svc's lock (by its pid, never waited for), or
 * undefined when none runs: a journal it left is refused with `rm` advice only once it is not
 * running (attack23b F1: that advice, followed, set two runs of one command going at once).
 */
export function olderRunHolding(journal: string): SvcError | undefined {
  const path = `${journal}.lock`;
  if (!existsSync(path)) return undefined;
  const read = readLock(path);
  // A lock that names its operation is a current svc's, no earlier svc's run: another caller's, or
  // this process's own (a --journal run at an earlier svc's journal locks it before reading it, and
  // its lock always names its operation: review23e H1, review23f L2).
  if (read?.holder.operation !== undefined) return undefined;
  // Unreadable and seen unchanged over a watch (watchUnreadableLock): its maker is dead, no run.
  const raw = read === undefined ? readRaw(path) : undefined;
  if (raw === undefined ? !existsSync(path) : deadAt(path, raw)) return undefined;
  // Unreadable, not watched: a holder between its create and its write, or a torn file. Taken as held.
  const held: Held | Watch | undefined = read
    ? judge(read, { host: hostname() } as Holder, path)
    : { here: false, gone: `if no svc is running, remove ${path}` };
  return held === undefined ? undefined : olderRunRunning(journal, read?.holder, held);
}

/**
 * Whether a run holds `journal`'s lock now, judged at once as lockJournal judges a holder (never
 * watched): one whose process runs, or may (another host, PID namespace or boot), or a lock that
 * cannot be read (its maker may be writing it). None: no lock, or its holder gone (a killed run).
 * The earlier-input note (caller.ts earlierInputsRun) never tells to resume or `rm` a running run.
 */
export function lockHeld(journal: string): boolean {
  const path = `${journal}.lock`;
  const read = readLock(path);
  if (read === undefined) {
    const raw = readRaw(path);
    return raw !== undefined && !deadAt(path, raw);
  }
  return judge(read, { host: hostname() } as Holder, path) !== undefined;
}

/** An earlier svc's run of this command is running: wait for it (exit 6), never remove its journal. */
function olderRunRunning(journal: string, holder: Holder | undefined, held: Held | Watch): SvcError {
  const on = 'watch' in held ? where(holder!, held.watch) : held;
  const who = holder
    ? `pid ${holder.pid}${on.where ? ` ${on.where}` : ''}, since ${holder.since}`
    : 'its lock unreadable';
  const gone = on.gone ? `; ${on.gone}` : '';
  return new SvcError(
    'conflict',
    `an earlier svc's run of this command is running (${who}; journal ${journal}); nothing was done`,
    {
      code: 'journal_locked',
      hint: `wait for it to finish, then run the command again${gone}`,
    },
  );
}

/**
 * What is at `path` now for the lock this process made (`fd`): that very file (`ours`), another
 * file (`other`: taken over), nothing (`removed`), or an error's code that stops the check
 * (EACCES, ESTALE, EIO: it cannot be told).
 */
function lockSeen(path: string, fd: number): 'ours' | 'other' | 'removed' | string {
  let made: ReturnType<typeof fstatSync>;
  try {
    made = fstatSync(fd);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
  try {
    const there = statSync(path);
    return made.ino === there.ino && made.dev === there.dev ? 'ours' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'removed' : (code ?? String(error));
  }
}

/**
 * This run's lock, made and then taken over before its holder was written into it: this process
 * was stopped between the two for longer than another run watched it (WATCH_MS), so that run took
 * it as a dead maker's and may be running now. Nothing was done, nothing is removed (not ours).
 */
function takenWhileWriting(path: string): SvcError {
  return new SvcError(
    'conflict',
    `the lock ${path} was taken over by another svc run while this one was writing it (this process was stopped for over ${WATCH_MS / 1000} s); nothing was done`,
    {
      code: 'journal_locked',
      hint: 'wait for that run to finish, then run the command again',
    },
  );
}

/** A lock's bytes and mtime, whether or not they name a holder; undefined when it is not there. */
function readRaw(path: string): Raw | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    const { mtimeMs } = statSync(path);
    return { text, mtimeMs };
  } catch {
    return undefined;
  }
}

function readLock(path: string): Read | undefined {
  const raw = readRaw(path);
  if (raw === undefined) return undefined;
  try {
    const holder = JSON.parse(raw.text) as Partial<Holder>;
    if (typeof holder.pid === 'number' && typeof holder.host === 'string' && typeof holder.since === 'string')
      return { ...raw, holder: holder as Holder };
  } catch {
    // unreadable: see the caller
  }
  return undefined;
}

/**
 * The older path's lock, unreadable and changed while svc watched it (its maker alive, writing it
 * slowly): refused naming the lock, the one file the user has (review23e L1: not a journal never made).
 */
function unreadableHeld(path: string): SvcError {
  return new SvcError(
    'conflict',
    `the lock ${path} cannot be read, and changed while svc watched it for ${WATCH_MS / 1000} s; nothing was done`,
    {
      code: 'journal_locked',
      hint: `wait for the svc run that made it to finish, then run the command again; if no svc is running, remove ${path}`,
    },
  );
}

/**
 * The file system steps of removeStale: a seam so that a test can put another run's create between
 * the move aside and the give-back (review24b M1). svc always uses these.
 */
export const staleDisk = { renameSync, linkSync };

/**
 * Removes a dead holder's lock. It is first moved aside (atomic), so of two runs removing the
 * same stale lock only one does; the other then finds the new holder's lock and is refused. A
 * lock that is not the one judged (its maker wrote it, or another run took over, between our read
 * and our move; or its holder refreshed it since) is given back by a link, which never replaces a
 * lock made at `path` in the instant it was aside (review24b M1: a rename put it back over a third
 * run's fresh lock, and both ran). Such a lock is then not put back: its run, if it runs, is the
 * window the header names; the next try judges the lock at `path`. Only EEXIST says a third run
 * holds `path`: a file system without hard links puts it back by a rename (putBack).
 */
function removeStale(path: string, judged: Raw): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    staleDisk.renameSync(path, aside);
  } catch {
    return; // already moved by another run: the next create tells who holds it now
  }
  const moved = readRaw(aside);
  if (moved && (moved.text !== judged.text || moved.mtimeMs !== judged.mtimeMs)) {
    try {
      staleDisk.linkSync(aside, path);
    } catch (error) {
      // EEXIST: a run made its lock while this one was aside; it holds the path now. Any other
      // failure (no hard links on vfat, exFAT, SMB, some FUSE: EPERM, EOPNOTSUPP; EIO, ENOSPC)
      // says nothing of who holds the path: the lock aside is a live run's, never removed.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' && !existsSync(path)) {
        putBack(path, aside, error);
        return;
      }
    }
  }
  rmSync(aside, { force: true });
}

/**
 * Gives a live lock moved aside back by a rename, where a link cannot (review24e M1): as before
 * review24b M1, so a third run's lock made between the check that `path` is free and this rename
 * is replaced (both would run; the window of two system calls the link closes elsewhere). A rename
 * that fails too leaves the lock aside and refuses, naming both files: nothing was done.
 */
function putBack(path: string, aside: string, linkError: unknown): void {
  try {
    staleDisk.renameSync(aside, path);
  } catch (error) {
    const why = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);
    throw new SvcError(
      'conflict',
      `the lock ${path} is another svc run's, and svc moved it aside to ${aside} and could not put it back (link: ${why(linkError)}; rename: ${why(error)}); nothing was done`,
      {
        code: 'journal_locked',
        hint: `put it back: mv ${pathWord(aside)} ${pathWord(path)} (unless ${path} exists: then remove ${aside}), then run the command again`,
      },
    );
  }
}
