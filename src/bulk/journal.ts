// Past 300 lines: the journal's file format, its lock-held writes, resume and the full-disk stop
// are one record of a run, read back and appended to by one class; where it lives and whose it is
// (journal-path.ts) and the plan kept beside it (kept-plan.ts) are their own files.
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, readFileSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { isoSeconds, serverTime } from '../api/time.js';
import { makeStoreDirectories } from '../config/store-directory.js';
import { type SvcError, UsageError } from '../errors.js';
import { CLOCK_SKEW_MS } from '../platform/clock.js';
import { fileErrorReason } from '../system/input.js';
import { pathWord } from '../system/shell-words.js';
import { JournalChangedError, type JournalDisk, JournalWriteError, realJournalDisk } from './journal-disk.js';
import { foundAt, journalPathFix, journalPathReason, notTheJournal, refuseForeign } from './journal-path.js';
import { KeptPlans } from './kept-plan.js';
import { olderRunHolding } from './lock.js';

// Where they were before journal-path.ts (tests, other callers).
export {
  defaultJournalPath,
  refuseDirectory,
  refuseSharedJournals,
  refuseUnsafeJournalDirectory,
} from './journal-path.js';

/** One line of a journal after its header: an item done, or an attempt that got a definite "no". */
interface JournalEntry {
  key: string;
  status: 'ok' | 'failed';
  at: string;
  detail?: Record<string, unknown>;
}

/**
 * Whose run of which command a journal holds: `operation` is the run's identity (the command, its
 * server, tenant, profile and caller: operation.ts); `command` the same without the caller, which
 * a journal written before svc recorded callers has as its operation (no `command` in its first
 * line). A bare string is an operation alone (unit tests).
 */
export interface RunOwner {
  operation: string;
  command?: string;
  /** The caller in words (Caller.shown), written in the first line for another caller's note. */
  by?: string;
  /**
   * The same command by the same caller against the same server and tenant, whatever its input
   * and flags (ownerOf): a run of another file is told of an unfinished one (earlierInputsRun).
   */
  family?: string;
  /** What starts a run of one's own once an earlier svc's journal is removed (BulkVerb.startOver). */
  startOver?: string;
}

/** What a run is: its id (idempotency keys derive from it) and when it first started. */
export interface RunIdentity {
  runId: string;
  startedAtMs: number;
  /** An earlier, unfinished run of the same operation is being resumed. */
  resumed: boolean;
}

/**
 * An append-only record of one run of a bulk operation (one JSON line per finished item, written
 * with a synchronous write as each item finishes, so a crash or SIGKILL loses at most the items
 * in flight). The first line names the operation and the run: its id and start time. A re-run of
 * the same operation resumes that run: it skips what is done and sends the rest with the same
 * idempotency keys. Items the server refused with a definite answer (a 4xx) are recorded too, so
 * the next attempt of such an item gets a new key rather than the stored refusal.
 */
export class Journal {
  readonly path: string;
  readonly operation: string;
  readonly #owner: RunOwner;
  readonly run: RunIdentity;
  readonly #done = new Map<string, JournalEntry>();
  /** Keys finished by this process: only the key is kept (a 10,000-row run keeps no entries). */
  readonly #recorded = new Set<string>();
  readonly #failures = new Map<string, number>();
  /**
   * Items an earlier run marked sent (markSent) and did not finish, each its mark: that run may have
   * made its change, its answer lost with the run (a kill). Read back only; a journal an earlier
   * svc wrote has none.
   */
  readonly #sent = new Map<string, Record<string, unknown>>();
  /** Keys the run took from its source (BulkVerb.fromJournal), in order: see plan(). */
  readonly #planned = new Set<string>();
  readonly #now: () => number;
  /** When the run's durations count from (see anchor()), once known. */
  #anchorMs: number | undefined;
  /** The second the run started in on the platform's own clock, once known (see platformStart()). */
  #platformStartMs: number | undefined;
  #started: boolean;
  /** Kept open while items are recorded (one write per item, no open/close each time). */
  #fd: number | undefined;
  readonly #disk: JournalDisk;
  /** The files kept beside the journal (keepBeside) and their sha256. */
  readonly #kept: KeptPlans;
  /** The file ends in a line cut short (a full disk, a kill mid-write): the next line starts anew. */
  #cut = false;
  /** The first write that failed: nothing is written after it (a part of a line may be there). */
  #broken: JournalWriteError | JournalChangedError | undefined;
  /** The file load() found and checked (refuseForeign), or undefined: a new one is made (#open). */
  #found: Stats | undefined;
  /**
   * When the last run of this journal finished, every item tried, some failed (finished()): its
   * journal kept for the same command to take them up again; undefined when that run was cut
   * short (Ctrl-C, a kill, a halt) or never said (a journal an earlier svc wrote).
   */
  #finishedAt: string | undefined;
  /**
   * When the last run of this journal finished with every item done, its journal left behind
   * because it could not be removed (markFinished(false)); undefined otherwise.
   */
  #allDoneAt: string | undefined;
  /**
   * When the run of this journal finished whose end an earlier svc's run then followed: item lines
   * after the finish with no `resumed` line (an svc before truth22 3 writes none, attack23b F2),
   * so how that last run ended is not recorded; undefined otherwise.
   */
  #olderAfter: string | undefined;
  /** This process wrote the resumed run's `resumed` line (start()). */
  #resumedSaid = false;
  /**
   * What the run's items act on, by the names its input gives them (a grants file's roles: each
   * name's id when the run first started), kept in the first line: a resumed run checks that each
   * name still means the same object (attack29b F1). Undefined in a journal an earlier svc wrote.
   */
  #subjects: Map<string, string> | undefined;

  private constructor(path: string, owner: RunOwner, run: RunIdentity, now: () => number, disk: JournalDisk) {
    this.path = path;
    this.operation = owner.operation;
    this.#owner = owner;
    this.run = run;
    this.#now = now;
    this.#disk = disk;
    this.#kept = new KeptPlans(path, disk);
    this.#started = run.resumed;
  }

  /**
   * The journal of `operation` at `path`: an earlier run's, read back (nothing is written), or a
   * new run's, which `start()` writes. A file of another operation is refused; so is one of the
   * same command by another caller (refusedOwner).
   */
  static load(path: string, owned: RunOwner | string, now: () => number, disk = realJournalDisk): Journal {
    const owner = typeof owned === 'string' ? { operation: owned } : owned;
    const operation = owner.operation;
    refuseForeign(path);
    const found = foundAt(path);
    let text: string | undefined;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new UsageError(`cannot read journal ${path}: ${journalPathReason(error)}`, {
          hint: `${journalPathFix(error)}; svc changed nothing`,
        });
      }
    }
    if (text === undefined || text.trim() === '') {
      const started = Math.floor(now() / 1000) * 1000;
      const run = { runId: randomUUID(), startedAtMs: started, resumed: false };
      const journal = new Journal(path, owner, run, now, disk);
      journal.#found = found;
      return journal;
    }
    const [first, ...rest] = journalLines(text);
    const header = headerOf(first ?? '');
    const startedAtMs = typeof header?.started_at === 'string' ? serverTime(header.started_at) : Number.NaN;
    if (header?.operation !== operation || typeof header.run_id !== 'string' || Number.isNaN(startedAtMs)) {
      throw (
        refusedOwner(path, header, owner) ??
        new UsageError(`journal ${path} belongs to another operation`, {
          hint: 'use the same file, flags, profile, credential and tenant to resume, or pass another --journal',
        })
      );
    }
    const journal = new Journal(path, owner, { runId: header.run_id, startedAtMs, resumed: true }, now, disk);
    journal.#found = found;
    journal.#cut = !text.endsWith('\n');
    const anchorMs = typeof header.anchor === 'string' ? serverTime(header.anchor) : Number.NaN;
    // A journal written before svc kept the anchor: its durations counted from its start.
    journal.#anchorMs = Number.isNaN(anchorMs) ? startedAtMs : anchorMs;
    // A journal written before svc kept it has none: knownPlatformStart() says so (undefined).
    const platformMs =
      typeof header.platform_started_at === 'string' ? serverTime(header.platform_started_at) : Number.NaN;
    if (!Number.isNaN(platformMs)) journal.#platformStartMs = platformMs;
    journal.#kept.note(header.kept);
    journal.#subjects = subjectsOf(header.subjects);
    for (const line of rest) {
      if (line.trim() === '') continue;
      try {
        const entry = JSON.parse(line) as JournalEntry & {
          planned?: unknown;
          kept?: unknown;
          finished?: unknown;
          all_done?: unknown;
          resumed?: unknown;
          sent?: unknown;
        };
        // A file kept beside the journal after its first line was written (keepBeside).
        journal.#kept.note(entry.kept);
        // The last run's end: finished (markFinished), or taken up again since (start()).
        // (One of the two: the last says how the last run ended.)
        if (typeof entry.finished === 'string')
          [journal.#finishedAt, journal.#allDoneAt] = [entry.finished, undefined];
        if (typeof entry.all_done === 'string')
          [journal.#finishedAt, journal.#allDoneAt] = [undefined, entry.all_done];
        // An item line right after a finish: an earlier svc took the run up (it writes no `resumed`).
        const end = journal.#finishedAt ?? journal.#allDoneAt;
        if (
          entry.resumed !== undefined ||
          typeof entry.finished === 'string' ||
          typeof entry.all_done === 'string'
        )
          journal.#olderAfter = undefined;
        else if (typeof entry.key === 'string' && end !== undefined) journal.#olderAfter = end;
        if (entry.resumed !== undefined || typeof entry.key === 'string') {
          journal.#finishedAt = undefined;
          journal.#allDoneAt = undefined;
        }
        // A page of items the run took (plan()): not an item done.
        if (Array.isArray(entry.planned)) {
          for (const key of entry.planned) if (typeof key === 'string') journal.#planned.add(key);
        }
        // An item's request about to go (markSent): in flight until its own line says how it ended.
        if (typeof entry.sent === 'string') journal.#sent.set(entry.sent, { ...entry });
        if (typeof entry.key !== 'string') continue;
        journal.#sent.delete(entry.key);
        if (entry.status === 'failed') journal.#failures.set(entry.key, journal.attempts(entry.key) + 1);
        else journal.#done.set(entry.key, entry);
      } catch {
        // the last line of a journal killed mid-write: that item was not recorded, so it runs again
      }
    }
    return journal;
  }

  /**
   * Writes a new run's first line (before anything is sent); a resumed run's is already there.
   * A JournalWriteError leaves no file (a part of a first line would make the re-run refuse it).
   */
  start(): void {
    if (this.#started) {
      // A resumed run's journal is opened now, before anything is sent: one changed since it was
      // read is refused here (JournalChangedError), not at the first row's line, after that row.
      // Its line (once) says the run is taken up again: cut short, no earlier finish is its end.
      if (this.#resumedSaid || !this.run.resumed) this.#append(undefined);
      else this.#append({ resumed: isoSeconds(this.#now()) });
      this.#resumedSaid = true;
      this.#finishedAt = undefined;
      this.#olderAfter = undefined;
      this.#allDoneAt = undefined;
      return;
    }
    makeStoreDirectories(dirname(this.path));
    const header = {
      journal: 3,
      operation: this.operation,
      ...(this.#owner.command === undefined ? {} : { command: this.#owner.command }),
      ...(this.#owner.by === undefined ? {} : { by: this.#owner.by }),
      ...(this.#owner.family === undefined ? {} : { family: this.#owner.family }),
      run_id: this.run.runId,
      started_at: isoSeconds(this.run.startedAtMs),
      ...(this.#anchorMs === undefined ? {} : { anchor: isoSeconds(this.#anchorMs) }),
      ...(this.#platformStartMs === undefined
        ? {}
        : { platform_started_at: isoSeconds(this.#platformStartMs) }),
      ...(this.#kept.size === 0 ? {} : { kept: this.#kept.digests() }),
      ...(this.#subjects === undefined ? {} : { subjects: Object.fromEntries(this.#subjects) }),
    };
    try {
      this.#append(header);
    } catch (error) {
      // A file someone else put or changed there is theirs: left as it is.
      if (!(error instanceof JournalChangedError)) this.remove();
      throw error;
    }
    this.#started = true;
  }

  /**
   * The time the run's durations (expires_in) count from, fixed at its first start so that a
   * resumed run (and its dry run) counts the same: a new run's is `compute()` (the platform's time
   * at its start, whole seconds), written in the journal's first line by start(), so it is asked
   * before; a resumed run's is read from there.
   */
  /** The anchor if it is known yet (an earlier run's, read back), without computing one. */
  knownAnchor(): number | undefined {
    return this.#anchorMs;
  }

  anchor(compute: () => number): number {
    if (this.#anchorMs !== undefined) return this.#anchorMs;
    this.#anchorMs = Math.floor(compute() / 1000) * 1000;
    // A new run's start is its anchor when the clocks agree: a DLQ run anchors after counting its
    // queue, maybe a second after it opened, and its lines (resuming(), noteLater) name one start.
    if (
      !this.run.resumed &&
      !this.#started &&
      Math.abs(this.#anchorMs - this.run.startedAtMs) < CLOCK_SKEW_MS
    ) {
      this.run.startedAtMs = this.#anchorMs;
    }
    return this.#anchorMs;
  }

  /**
   * The second the run started in on the platform's own clock (the Date header of an answer, however
   * few seconds it is off this machine's; unlike anchor(), which takes this machine's clock while
   * the two are under a minute apart): a new run's is `compute()`, written in the journal's first
   * line by start(); a resumed run's is read from there, never taken from a clock again. A DLQ
   * run's window ends with that second (QueueSnapshot). A new run's start is that second when the
   * clocks agree, so its lines name one start.
   */
  platformStart(compute: () => number): number {
    if (this.#platformStartMs !== undefined) return this.#platformStartMs;
    this.#platformStartMs = Math.floor(compute() / 1000) * 1000;
    if (
      !this.run.resumed &&
      !this.#started &&
      Math.abs(this.#platformStartMs - this.run.startedAtMs) < CLOCK_SKEW_MS
    ) {
      this.run.startedAtMs = this.#platformStartMs;
    }
    return this.#platformStartMs;
  }

  /** The run's start on the platform's clock if it is known (platformStart); undefined in a journal written before svc kept it. */
  knownPlatformStart(): number | undefined {
    return this.#platformStartMs;
  }

  /**
   * What the run's items act on, by name (see #subjects): a resumed run's as its first start
   * found them; a new run's once kept (keepSubjects); undefined in a journal an earlier svc wrote.
   */
  subjects(): ReadonlyMap<string, string> | undefined {
    return this.#subjects;
  }

  /** A new run's subjects, written in its first line by start(); a resumed run keeps its first start's. */
  keepSubjects(subjects: ReadonlyMap<string, string>): void {
    if (this.run.resumed || this.#started) return;
    this.#subjects = new Map(subjects);
  }

  /** How many items an earlier run marked sent (markSent) and did not finish. */
  inFlight(): number {
    return this.inFlightKeys().length;
  }

  /** The keys an earlier run marked sent (markSent) and did not finish. */
  inFlightKeys(): string[] {
    return [...this.#sent.keys()].filter((key) => !this.#done.has(key));
  }

  has(key: string): boolean {
    return this.#done.has(key) || this.#recorded.has(key);
  }

  /** The details of an item an earlier run finished (read from the file). */
  get(key: string): Record<string, unknown> | undefined {
    return this.#done.get(key)?.detail;
  }

  /** The details of every item earlier runs finished. */
  *finished(): Iterable<Record<string, unknown>> {
    for (const entry of this.#done.values()) if (entry.detail) yield entry.detail;
  }

  /** The items earlier runs finished, in the order they finished: each key and its details. */
  earlier(): Array<{ key: string; detail: Record<string, unknown> }> {
    return [...this.#done.values()].map(({ key, detail }) => ({ key, detail: detail ?? {} }));
  }

  /**
   * Notes that the run took `keys` from its source (a page of a queue), before they are done: a
   * resumed run knows the items its earlier run meant to do and did not, even those that left the
   * source while it was stopped. One line `{"planned": [keys]}` (those not noted yet), which a
   * journal written before svc kept them simply lacks.
   */
  plan(keys: readonly string[]): void {
    const fresh = keys.filter((key) => !this.#planned.has(key));
    if (fresh.length === 0) return;
    this.#append({ planned: fresh });
    for (const key of fresh) this.#planned.add(key);
  }

  /** The keys earlier runs (and this one) took from the source, in the order they took them. */
  planned(): Iterable<string> {
    return this.#planned;
  }

  /** How many keys the run took (plan()) are not finished: each is still owed a row. */
  unfinished(): number {
    let count = 0;
    for (const key of this.#planned) if (!this.has(key)) count++;
    return count;
  }

  /** How many attempts at the item got a definite refusal: the next attempt is number attempts + 1. */
  attempts(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /**
   * Notes, before an item's request is sent, that it is in flight (`{"sent": KEY, ...mark}`): a
   * run cut before the item's own line (a kill, a crash, a stop before its answer) leaves the mark,
   * and the resumed run knows that run may have made the change (sentEarlier), judged like an
   * attempt whose answer was lost, never "already so, nothing changed" (brief fixgrant4 item 2).
   * One write(2) of a short line, as record()'s (no fsync: a kill cannot lose it, a power cut may).
   * An earlier svc's load() passes the line over (it has no `key`). Throws JournalWriteError.
   */
  markSent(key: string, mark: Record<string, unknown>): void {
    this.#append({ sent: key, ...mark });
  }

  /** The mark of `key` an earlier run left (markSent) without finishing it, or undefined. */
  sentEarlier(key: string): Record<string, unknown> | undefined {
    return this.#done.has(key) ? undefined : this.#sent.get(key);
  }

  record(key: string, detail?: Record<string, unknown>): void {
    this.#append({ key, status: 'ok', at: isoSeconds(this.#now()), ...(detail ? { detail } : {}) });
    this.#recorded.add(key);
  }

  /**
   * Notes that the run finished, every item tried, and its journal is kept because some failed
   * (`{"finished": T}`), or — `failures` false — left behind with every item done because it could
   * not be removed (`{"all_done": T}`): a later run of the same command says it takes up a finished
   * run's failures, or shows a finished run again, never that it resumes an interrupted one
   * (earlierFinish, earlierAllDone). A line of its own, which an earlier svc's load() passes over.
   * Throws JournalWriteError (a full disk): the caller says what the next run will then believe.
   */
  markFinished(failures = true): void {
    const at = isoSeconds(this.#now());
    this.#append(failures ? { finished: at } : { all_done: at });
    [this.#finishedAt, this.#allDoneAt] = failures ? [at, undefined] : [undefined, at];
    this.#olderAfter = undefined;
  }

  /** When the last run of this journal finished with failures (markFinished); undefined: cut short, or not said. */
  earlierFinish(): string | undefined {
    return this.#finishedAt;
  }

  /** When the last run of this journal finished with every item done, its journal left behind (markFinished(false)). */
  earlierAllDone(): string | undefined {
    return this.#allDoneAt;
  }

  /** When a run of this journal finished that an earlier svc then took up, its end not recorded (attack23b F2). */
  earlierTakenUp(): string | undefined {
    return this.#olderAfter;
  }

  recordFailure(key: string): void {
    this.#append({ key, status: 'failed', at: isoSeconds(this.#now()) });
    this.#failures.set(key, this.attempts(key) + 1);
    // The next attempt has a key of its own: the earlier run's attempt was refused, it made nothing.
    this.#sent.delete(key);
  }

  /**
   * Removes the journal (after a run with nothing left to resume). One that cannot be removed
   * stays: the run's result is what it did (review17b R17b-2: its failure made a done run exit 1);
   * why (the OS's reason in words) is returned for the run to say (finish.ts, leftJournal).
   */
  remove(): string | undefined {
    // The file as this process left it: one that cannot be removed may still take a line (its
    // finish, markFinished), appended only while it is that same file (#open).
    if (this.#fd !== undefined) {
      this.#found = fstatSync(this.#fd);
      closeSync(this.#fd);
    }
    this.#fd = undefined;
    const not = notTheJournal(this.path, this.#found);
    if (not !== undefined) return not;
    try {
      this.#disk.remove(this.path);
      this.#found = undefined;
      return undefined;
    } catch (error) {
      return fileErrorReason(error);
    }
  }

  /**
   * Writes a file beside the journal (`path` + `suffix`, 0600) before anything is sent: e.g. the
   * plan an apply works from (KeptPlans.keep, kept-plan.ts). Its sha256 goes in the journal's first
   * line (or, once that is written, a line of its own), so that readBeside() takes back only what
   * svc wrote. Throws JournalWriteError (or the refusal).
   */
  keepBeside(suffix: string, chunks: Iterable<string>): void {
    const digest = this.#kept.keep(suffix, chunks);
    if (this.#started) this.#append({ kept: { [suffix]: digest } });
  }

  /** What keepBeside() wrote beside the journal for this run, or undefined (KeptPlans.read). */
  readBeside(suffix: string): Buffer | undefined {
    return this.#kept.read(suffix);
  }

  /** Removes the files kept beside the journal for this run (KeptPlans.remove). */
  removeKept(): void {
    this.#kept.remove();
  }

  /**
   * The journal opened to append: the file load() checked (the same one: another swapped in
   * since is refused), or a new one, made exclusively (a link or file put there since fails).
   */
  #open(): number {
    if (this.#found === undefined) {
      try {
        return this.#disk.open(this.path, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw new JournalChangedError(this.path, true);
        throw error;
      }
    }
    const fd = this.#disk.open(this.path, 'a');
    const opened = fstatSync(fd);
    const found = this.#found;
    // The same file, as svc read it (an inode freed by a removal is often the next file's).
    if (
      opened.dev === found.dev &&
      opened.ino === found.ino &&
      opened.size === found.size &&
      opened.mtimeMs === found.mtimeMs
    )
      return fd;
    closeSync(fd);
    throw new JournalChangedError(this.path, false);
  }

  /**
   * Appends one line (`undefined`: none, the file is only opened); the first failure
   * (JournalWriteError, JournalChangedError) is every later write's too.
   */
  #append(entry: object | undefined): void {
    if (this.#broken) throw this.#broken;
    try {
      this.#fd ??= this.#open();
      if (entry === undefined) return;
      this.#disk.write(this.#fd, `${this.#cut ? '\n' : ''}${JSON.stringify(entry)}\n`);
      this.#cut = false;
    } catch (error) {
      this.#broken =
        error instanceof JournalChangedError
          ? error
          : JournalWriteError.of(`the journal ${this.path}`, error);
      throw this.#broken;
    }
  }
}

/** What a journal's first line says of its run (any field may be missing or of another type). */
export interface JournalHeader {
  journal?: unknown;
  operation?: unknown;
  command?: unknown;
  by?: unknown;
  family?: unknown;
  run_id?: unknown;
  started_at?: unknown;
  anchor?: unknown;
  platform_started_at?: unknown;
  kept?: unknown;
  subjects?: unknown;
}

/** A header's subjects (name → id), or undefined when it has none or they are not names and ids. */
function subjectsOf(value: unknown): Map<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([, id]) => typeof id === 'string')) return undefined;
  return new Map(entries as Array<[string, string]>);
}

/**
 * A journal's lines from its header on. The header is the first line with text: a --journal file
 * the user made holding a blank line gets it appended after that line (start()), and was then
 * refused as another operation's (1b6ec5d3). The one rule for the header: Journal.load's and the
 * other callers' note's (caller.ts otherCallersRun: it read the raw first line, review23e).
 */
export function journalLines(text: string): string[] {
  return text.replace(/^\s*\n/, '').split('\n');
}

/** A journal's first line, read; undefined when it is not a JSON object. */
export function headerOf(line: string): JournalHeader | undefined {
  try {
    const header: unknown = JSON.parse(line);
    return header !== null && typeof header === 'object' ? (header as JournalHeader) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a journal of the same command is not this caller's to resume, or undefined when it is of
 * another command: another caller's run (their rows are not this caller's), or a run an earlier
 * svc started without recording its caller, which svc cannot tell to be this caller's (it is
 * refused, not taken for theirs nor left without a word).
 */
export function refusedOwner(
  path: string,
  header: JournalHeader | undefined,
  owner: RunOwner,
): SvcError | undefined {
  if (owner.command === undefined || header === undefined) return undefined;
  if (header.command === undefined && header.operation === owner.command) {
    // Its run still going (its lock's pid runs): wait for it, never `rm` it (attack23b F1).
    const running = olderRunHolding(path);
    if (running !== undefined) return running;
    return new UsageError(
      `journal ${path} holds a run of this command that an earlier svc started without recording who ran it, so svc cannot resume it as yours`,
      {
        code: 'journal_caller_unknown',
        hint: `see what it did with \`cat ${pathWord(path)}\`; to start a run of your own, remove it (\`rm ${pathWord(path)}\`) and ${owner.startOver ?? 'run the command again'}`,
      },
    );
  }
  if (header.command === owner.command) {
    const by = typeof header.by === 'string' ? ` (${header.by})` : '';
    return new UsageError(
      `journal ${path} holds another caller's run of this command${by}: a run is resumed only by the caller who started it`,
      {
        code: 'journal_other_caller',
        hint: 'pass another --journal for a run of your own, or run the command as that caller to resume theirs',
      },
    );
  }
  return undefined;
}
