// Over 300 lines: the one bulk operation, from the journal's lock to the exit code, with what a
// second Ctrl-C says of it; its verbs' contract (BulkVerb) is most of its length.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { isoSeconds } from '../api/time.js';
import type { Context } from '../context.js';
import { type SvcError, UsageError } from '../errors.js';
import { refuseShortAddressSpace } from '../http/address-space.js';
import { attemptsOnTheWire, finishingSent } from '../http/retry.js';
import type { Column } from '../output/output.js';
import { createProgress } from '../output/progress.js';
import { CLOCK_SKEW_MS } from '../platform/clock.js';
import { lastWordOnExit } from '../system/interrupts.js';
import { linkedSignal } from '../system/linked-signal.js';
import { openFilesLimit } from '../system/system-errors.js';
import { callerOf, earlierInputsRun, otherCallersRun } from './caller.js';
import { finishDryRun } from './dry-run-end.js';
import { abandonedRun, finishRun } from './finish.js';
import { withCompactHeap } from './heap.js';
import type { BulkItem, BulkResult, Worker } from './item.js';
import { Journal, type RunIdentity, type RunOwner } from './journal.js';
import { JournalChangedError, JournalWriteError } from './journal-disk.js';
import { leftJournal } from './journal-end.js';
import {
  defaultJournalPath,
  journalPathFix,
  journalPathReason,
  refuseDirectory,
  refuseSharedJournals,
  refuseUnsafeJournalDirectory,
} from './journal-path.js';
import { lockJournal, lockLost, watchUnreadableLock } from './lock.js';
import { RunOrder } from './order.js';
import { resultStream } from './results.js';
import { type Journaled, runItems } from './runner.js';
import { SourceCut } from './source-pull.js';
import type { BulkSummary } from './summary.js';

/** An output row; rows that come from a file carry its line (a terminal table is in line order). */
export type Row = object & { line?: number | undefined };

/**
 * A bulk verb, as it describes itself to the one bulk operation: where its items come from, what
 * one item is, and how results look. The operation owns the rest: the run's identity, journal
 * and resume, concurrency, progress, streamed results, the summary, the exit code, Ctrl-C and a
 * closed stdout.
 */
export interface BulkVerb<T, R extends Row> {
  /** Names journals: `roles-assign`, `webhooks-replay`. */
  kind: string;
  /**
   * What makes two runs the same operation besides the server and tenant (the input file's hash,
   * the flags that change requests): the same identity resumes an unfinished run's journal.
   */
  identity: unknown[];
  /** --journal, else a file in the state directory named by the identity. */
  journal: string | undefined;
  dryRun: boolean;
  concurrency: number;
  /** The verb in words: `grant`, `granting`, `granted`. */
  words: { act: string; doing: string; done: string };
  /**
   * The tenant every item is changed in, as its summary names it after the counts (changed-in.ts
   * changedIn: ` in acme-payments-eu`); unset for a run whose items say where themselves. Read when
   * the summary is printed, not when the verb is described: a question asked during the run (a
   * revoke's, a discard's) names the tenant in its own words, and the summary says the same.
   */
  where?: (() => string) | undefined;
  /**
   * Checks everything before anything is sent (a usage error stops here) and says how many items
   * there will be, when known. `run` is the run about to happen: a resumed run's first start.
   */
  prepare(run: RunIdentity, journal: Journal): Promise<number | undefined>;
  /**
   * The items. `settled` resolves once every item taken so far has finished, or was left
   * (RunOrder.take): a source whose items leave it as they are done (a queue) reads it again only
   * then (QueueSnapshot.entries).
   * When the run is stopping meanwhile (Ctrl-C, a closed stdout) it throws SourceCut instead: left
   * to end the source, that says the run was cut there, not that its items were all done.
   */
  items(
    run: RunIdentity,
    journal: Journal,
    settled: () => Promise<void>,
  ): Iterable<BulkItem<T>> | AsyncIterable<BulkItem<T>>;
  work: Worker<T>;
  /**
   * What the journal notes of an item before its request is sent (RunOptions.markSent); every verb's
   * item is noted in flight (an empty mark when undefined): a resumed run whose first attempt is
   * answered from the platform's record of a marked item counts it the earlier run's, never its own
   * twice (BulkSummary.earlierRun; review29c M3).
   */
  markSent?: ((item: BulkItem<T>) => Record<string, unknown>) | undefined;
  /** --dry-run: what would happen to one item (reads only); `status: 'skipped'` for nothing to do. */
  plan: Worker<T>;
  /** One output row; `result.plan` is set in a dry run. */
  present(result: BulkResult & { plan?: string }, item: BulkItem<T>): R;
  columns(dryRun: boolean): Array<Column<R>>;
  /** A failed row in a few words, for the summary: `line 4: user usr_x not found`. */
  describe(row: R): string;
  /** Destructive verbs ask first (naming the tenant and the count), or need --yes; after prepare. */
  confirm?(count: number | undefined): Promise<void>;
  /** One named item: its failure is the command's error (and exit code), e.g. 5 for an unknown id. */
  single?: boolean;
  /**
   * What to do about failed items that were handled (nothing to resume), e.g. deliveries that
   * failed again; a function is asked once the run has ended, so it can say what is true then.
   */
  retryHint?: string | (() => string);
  /**
   * A verb whose items are the rows of a file: what fixing failed rows takes, said before "or run
   * the same command again to retry the failed rows" (a fixed file is a new run, not a resume),
   * e.g. `fix the file and run it again: a new run, rows already granted are skipped`.
   */
  fixHint?: string | (() => string);
  /**
   * Asked when every item was done: true keeps the journal all the same, so the same command
   * resumes, also when some rows failed for good; the counts are then no success (no ✓) and the
   * verb ends with an error saying why (replays made but not followed to their deliveries).
   */
  keepJournal?: () => boolean;
  /**
   * Of the failed items, those that made their change all the same (a creation whose secret could
   * not be saved), in words for the summary ("2 of them created, their secret not saved").
   */
  madeThoughFailed?: () => string | undefined;
  /**
   * A dry run: what it could not check any row against, said after its counts so they are not
   * read as checked (`not checked against what you hold …`); undefined when every row was.
   */
  unchecked?: () => string | undefined;
  /**
   * Said when there is nothing to do (an empty queue); nothing is asked, sent or journaled. A
   * function is asked only then (a note that needs a read: `dlq discard`'s unsubscribed kind).
   */
  empty?: string | (() => Promise<string>);
  /**
   * A verb whose items come from a source that done items leave (a queue): the item of one an
   * earlier run finished, from its key and journaled details. A resumed run then says so first
   * (when it started, how many are done), shows every item its journal holds as a journal row,
   * whether or not the source still has it, and does not take one of them from the source again;
   * `prepare` counts what is left to do.
   */
  fromJournal?: (key: string, detail: Record<string, unknown>) => BulkItem<T>;
  /**
   * After prepare, what the resumed run's first line adds to its count of what is left: a doubt
   * about it, or how what is left differs from a new run's (grants counted from the first start).
   */
  resumeNote?: () => string | undefined;
  /**
   * What starts a run of one's own once an earlier svc's journal of this command is removed, when
   * the same command does not (a saved plan an earlier run may have applied part of: `svc plan`
   * again, attack23b F4); the command again when absent.
   */
  startOver?: string;
  /**
   * How an item an earlier run finished is doing now, for a resumed run's journal row: e.g. a
   * replay whose follow Ctrl-C cut, followed to its end now. A row it makes failed counts as
   * failed (exit 7), as it would have in the run that made it. Asked in a dry run too, where it
   * only reads (waits for nothing): the dry run's row says what the run's will.
   */
  journaled?: Journaled<T>;
  /**
   * An item's error that shows every later item would fail alike, for a reason of the run's own
   * (not the credential's, which always stops it): the error to end the run with (its exit code,
   * its hint: how to go on), or undefined to go on. No item starts after it; the journal is kept.
   */
  halts?: (error: unknown, item: BulkItem<T>) => SvcError | undefined;
}

/**
 * Runs a bulk verb (see BulkVerb), with V8's heap kept compact for the length of the run. Returns
 * the summary of a run that ended well (undefined when there was nothing to do); otherwise throws
 * the error that gives the exit code.
 */
export function runBulkOperation<T, R extends Row>(
  ctx: Context,
  verb: BulkVerb<T, R>,
): Promise<BulkSummary | undefined> {
  return withCompactHeap(() => run(ctx, verb));
}

/**
 * The run's identity: the same command against the same server and tenant (`command`, the whole
 * identity of a journal written before svc recorded callers), by the same caller: the profile and
 * a stable, non-secret identity of its credential (callerOf). Another caller's run of the same
 * command is not this one's to resume: its journal has another name.
 */
function ownerOf(ctx: Context, verb: { kind: string; identity: unknown[]; startOver?: string }): RunOwner {
  const { base_url, tenant } = ctx.settings().values;
  const sha256 = (value: unknown[]) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
  const command = sha256([verb.kind, 2, base_url ?? '', tenant ?? '', ...verb.identity]);
  const caller = callerOf(ctx);
  return {
    operation: sha256([verb.kind, 3, command, caller.id]),
    command,
    by: caller.shown,
    family: sha256([verb.kind, 4, base_url ?? '', tenant ?? '', caller.id]),
    ...(verb.startOver === undefined ? {} : { startOver: verb.startOver }),
  };
}

async function run<T, R extends Row>(ctx: Context, verb: BulkVerb<T, R>): Promise<BulkSummary | undefined> {
  const now = () => ctx.clock.now();
  // A run that will not fit in the address space is refused before it holds its journal's lock,
  // after its verb's usage checks (a missing file, no tenant: exit 2) and before anything is sent.
  // A dry run too: `roles assign --file --dry-run` was measured killed (SIGABRT, no word) at
  // Node 20's 11,500,000 KiB even at --concurrency 1 (review22a F2).
  refuseShortAddressSpace();
  // Read while descriptors are left: a row failing EMFILE says the limit (fileErrorReason).
  openFilesLimit();
  const owner = ownerOf(ctx, verb);
  const path = verb.journal ?? defaultJournalPath(ctx.env, verb.kind, owner.operation);
  // A new run in the state directory: an earlier svc's run of this command is refused (whose it
  // is is unknown), another caller's is named, left to them.
  // What is at the path first: a pipe, a device or a path that cannot be looked at is said in one
  // line before the directories above it are looked at (their lstat's text named the path twice).
  refuseDirectory(path, verb.journal !== undefined);
  if (verb.journal === undefined) refuseSharedJournals(dirname(path));
  else refuseUnsafeJournalDirectory(path);
  // A holder seen dead at one lock is not watched again at the next (one wait).
  const watch = {
    sleep: ctx.clock.sleep,
    signal: ctx.signal,
    say: (line: string) => ctx.out.info(line),
    dead: new Set<string>(),
  };
  // An earlier svc's journal where this run reads it (--journal, or the older path the other
  // callers' note reads) whose lock cannot be read: watched first, by a dry run as by the real run.
  const earlier = verb.journal ?? (owner.command && defaultJournalPath(ctx.env, verb.kind, owner.command));
  if (earlier && existsSync(earlier)) await watchUnreadableLock(earlier, watch);
  if (verb.journal === undefined && !existsSync(path)) {
    const note = otherCallersRun(dirname(path), verb.kind, owner);
    if (note !== undefined) ctx.out.info(note);
  }
  // A dry run only reads the journal; a real run holds it, from before it reads it to its end.
  const unlock = verb.dryRun
    ? undefined
    : await beforeSending(verb, async () => {
        // Both locks through the journal disk (a full disk at either is said as the journal's).
        const lock = (at: string, older?: boolean) =>
          lockJournal(
            at,
            { command: verb.kind.replaceAll('-', ' '), operation: owner.operation },
            now(),
            ctx.journalDisk,
            watch,
            older,
          );
        const release = await lock(path);
        // Held too where an svc before session 16 keeps this command's run (--journal: the same
        // path for both), so such an svc started meanwhile is refused, not run beside this one.
        if (verb.journal !== undefined || owner.command === undefined) return release;
        try {
          const releaseOlder = await lock(defaultJournalPath(ctx.env, verb.kind, owner.command), true);
          return () => {
            releaseOlder();
            release();
          };
        } catch (error) {
          release();
          throw error;
        }
      });
  try {
    const summary = await runLocked(ctx, verb, Journal.load(path, owner, now, ctx.journalDisk));
    // Once, at the end of a real run whose every item is done (not stopped, no failure): an earlier run of another input is still
    // unfinished (attack25a F10: a file fixed and run again). A failed run's last line is its error.
    const other =
      verb.journal === undefined &&
      !verb.dryRun &&
      !ctx.signal.aborted &&
      summary !== undefined &&
      summary.failed === 0 &&
      summary.unknown === 0
        ? earlierInputsRun(dirname(path), verb.kind, owner, path)
        : undefined;
    if (other !== undefined) ctx.out.info(other);
    return summary;
  } finally {
    unlock?.();
  }
}

async function runLocked<T, R extends Row>(
  ctx: Context,
  verb: BulkVerb<T, R>,
  journal: Journal,
): Promise<BulkSummary | undefined> {
  const now = () => ctx.clock.now();
  const earlier = verb.fromJournal && journal.run.resumed ? journal.earlier() : [];
  const left = await beforeSending(verb, () => verb.prepare(journal.run, journal));
  const total = left === undefined ? undefined : left + earlier.length;
  // Items the run it resumes took and did not finish: those still in the source are in `left`;
  // the others left it while the run was stopped, and each is still owed its row (review s12-a #2).
  const owed = verb.fromJournal && journal.run.resumed ? journal.unfinished() : 0;
  if (total === 0 && owed === 0 && verb.empty !== undefined) {
    // A resumed run with nothing done, nothing left and nothing owed is over: its journal goes.
    const left = journal.run.resumed && !verb.dryRun ? leftJournal(journal, 'say this again') : undefined;
    if (ctx.out.mode === 'json') await ctx.out.jsonList([]);
    // An empty dry run prints [] as an empty run does: its line says it was a dry run (attack29a F8).
    const empty = typeof verb.empty === 'string' ? verb.empty : await verb.empty();
    ctx.out.info(verb.dryRun ? `dry run: ${empty}; nothing was changed` : empty);
    if (left !== undefined) ctx.out.warn(left);
    return undefined;
  }
  // Every resumed run says so first (attack22 F4: a grants file's and an apply's did not): which
  // run, how much is done and left. A verb without fromJournal counts all its items in `left`.
  // In every output mode (attack26a F11: with --json it was left out, and rows `skipped`, reason
  // `journal`, came with no word that this run resumed another): stderr is for people, and a
  // failed run's error object stays its last line (README, Output). With --json a line carrying a
  // note that matters (grants cut short, a queue's doubt) is a warning, in the same words.
  if (journal.run.resumed) {
    const done = verb.fromJournal ? earlier.length : journal.earlier().length;
    const toDo = verb.fromJournal || left === undefined ? left : Math.max(0, left - done);
    const note = verb.resumeNote?.();
    const line = resuming(journal, done, toDo, verb.dryRun, note);
    if (ctx.out.mode === 'json' && note !== undefined) ctx.out.warn(line);
    else ctx.out.info(line);
  }
  // Nothing left to do but show what the earlier run did: nothing to ask.
  if (!verb.dryRun && !((earlier.length > 0 || owed > 0) && left === 0)) await verb.confirm?.(left);
  if (!verb.dryRun) await beforeSending(verb, () => journal.start());

  const output = resultStream(ctx, verb.columns(verb.dryRun));
  // Linked, not AbortSignal.any (which Node 20 keeps listed on ctx.signal for good), and unlinked
  // at the run's end, as are its requests' (src/system/linked-signal.ts).
  const stopping = linkedSignal([ctx.signal, output.closed]);
  const stop = stopping.signal;
  const failures: R[] = [];
  const unknowns: R[] = [];
  let singleError: unknown;
  let callerRefused = false;
  const order = new RunOrder();
  const settled = async () => {
    await order.settled();
    if (stop.aborted) throw new SourceCut();
  };
  const source = verb.items(journal.run, journal, settled);
  const progress = createProgress(
    ctx.io.stderr,
    ctx.io.stderrIsTTY && ctx.io.cursorControl && !ctx.out.isMachine,
    total,
    // A dry run changes nothing: its bar must not say it is granting or replaying.
    verb.dryRun ? DRY_RUN_DOING : verb.words.doing,
    ctx.io.unicode,
    ctx.io.columns,
  );
  // How far the run is: what a second Ctrl-C says as it ends the run at once (abandonedRun).
  const far = { done: 0, inFlight: 0, total };
  const forget = lastWordOnExit(() => {
    progress.done();
    return abandonedRun(far, verb.dryRun ? undefined : journal);
  });
  // The items' requests: at Ctrl-C those on the wire finish, those waiting to be sent again are
  // not. A closed stdout only stops new items: a started one finishes, its waits too (cli-contract
  // 141: "started items finished"; review21b R21b-2: it was cut and called "interrupted").
  // The line is said before the rows' waits are stopped (its listener first), as when the requests'
  // signal was one of ctx.signal's dependants; the count it says is the same either way.
  const sayIt = () => sayStopping(ctx, attemptsOnTheWire(requests.signal)?.sent ?? 0);
  ctx.signal.addEventListener('abort', sayIt, { once: true });
  const requests = finishingSent(ctx.signal);
  const doing = verb.dryRun ? verb.plan : verb.work;
  const summary = await runItems<T>({
    items: verb.fromJournal
      ? withEarlier(
          earlier.map(({ key, detail }) => verb.fromJournal!(key, detail)),
          source,
        )
      : source,
    order,
    concurrency: verb.concurrency,
    work: (item, call) => {
      far.inFlight++;
      return doing(item, call).finally(() => far.inFlight--);
    },
    journal,
    dryRun: verb.dryRun,
    journaled: verb.journaled,
    halts: verb.dryRun ? undefined : verb.halts,
    markSent: verb.dryRun ? undefined : (verb.markSent ?? (() => ({}))),
    runId: journal.run.runId,
    stop,
    requests: requests.signal,
    beforeStart: () => output.ready(),
    lockLost: verb.dryRun ? undefined : () => lockLost(journal.path),
    now,
    progress,
    onResult: (result, item, error) => {
      far.done++;
      // A dry run's row says so itself (attack29a F8), beside its `plan`: added, nothing renamed.
      const planned = verb.dryRun ? { plan: PLAN[result.status] ?? verb.words.act, dry_run: true } : {};
      // The contract's statuses are ok, failed and skipped: an item whose outcome is unknown is
      // shown failed, with outcome "unknown" (its error says the platform may have made it).
      // A dry run's `unknown` is a check the server did not answer: planned `unknown`, no outcome.
      const shown: BulkResult =
        result.status !== 'unknown'
          ? result
          : verb.dryRun
            ? { ...result, status: 'failed' }
            : { ...result, status: 'failed', outcome: 'unknown' };
      const row = verb.present({ ...shown, ...planned }, item);
      if (result.status === 'failed' && failures.length < 3) failures.push(row);
      // A row planned refused for the caller's roles: the real run stops at its first (haltsTheRun).
      if (verb.dryRun && result.status === 'failed' && result.error?.code === 'insufficient_role')
        callerRefused = true;
      if (result.status === 'unknown' && unknowns.length < 3) unknowns.push(row);
      if (error !== undefined) singleError = error;
      return output.add(row);
    },
  }).finally(() => {
    forget();
    ctx.signal.removeEventListener('abort', sayIt);
    stopping.end();
    requests.end();
    return output.end();
  });

  const single =
    verb.single && summary.total === 1 && summary.failed + summary.unknown === 1 ? singleError : undefined;
  const closed = output.closed.aborted && !ctx.signal.aborted;
  if (verb.dryRun) {
    finishDryRun(ctx, verb, summary, failures, single, { total, closed, unknowns, callerRefused });
    return summary;
  }
  sayReplayed(ctx, summary, journal.run.resumed);
  finishRun(ctx, verb, { summary, total, failures, unknowns, journal, closed, single });
  return summary;
}

/**
 * The rows the platform answered from its record of an earlier request of their key: of a resumed
 * run, that run's or an attempt whose answer was lost; of a new run, the retry after this run's
 * lost answer, or — answered so at the first attempt, no answer lost — a request svc did not make
 * in this run (attack18b #7: never "an attempt whose answer was lost" that did not happen).
 */
function sayReplayed(ctx: Context, summary: BulkSummary, resumed: boolean): void {
  const replayed = summary.replayed ?? 0;
  if (replayed === 0) return;
  const said = (count: number, by: string) =>
    ctx.out.info(
      `${count.toLocaleString('en')} of these ${count === 1 ? 'was' : 'were'} done ${by}; the platform answered with what it did then`,
    );
  if (resumed) {
    said(replayed, 'by the earlier run this one resumes, or by an attempt whose answer was lost');
    return;
  }
  const first = summary.replayedFirst ?? 0;
  if (replayed > first) said(replayed - first, 'by an earlier attempt whose answer was lost');
  if (first > 0) {
    ctx.out.info(
      `${first.toLocaleString('en')} of these the platform answered as done before (Idempotent-Replayed) though svc lost no answer of them: their idempotency key was not new to it (another run with the same key, or the server marks answers so); the platform answered with what it did then`,
    );
  }
}

/**
 * Runs a step before anything is sent (the journal's lock, prepare, which may keep a file beside
 * the journal, and the journal's first line): a journal that cannot be written (a full disk) ends
 * the run there, saying that nothing was done, not as a bug.
 */
async function beforeSending<V>(verb: { words: { done: string } }, step: () => V | Promise<V>): Promise<V> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof JournalChangedError) throw error.said(`; nothing was ${verb.words.done}`);
    if (!(error instanceof JournalWriteError)) throw error;
    // A journal its permissions refuse (a 0400 file, not root): a path svc cannot use, said in
    // the words of the others (journalPathReason), exit 2 as they are; nothing was sent.
    if (error.denied) {
      throw new UsageError(`cannot write ${error.what}: ${journalPathReason(error.cause)}`, {
        code: 'journal_path',
        hint: `${journalPathFix(error.cause)}; svc changed nothing`,
      });
    }
    throw error.said(
      `; nothing was ${verb.words.done}`,
      'make room on its disk (or pass --journal PATH on another), then run the same command again',
    );
  }
}

/**
 * Said at once when Ctrl-C (SIGTERM, SIGHUP) stops a run while requests are on the wire: how many
 * it waits for (each may have been acted on; its answer says), and that a second signal ends it at
 * once. Items only waiting to be sent again stop waiting (WorkCall.signal). Not in --json, whose
 * stderr is the error's alone.
 */
function sayStopping(ctx: Context, onTheWire: number): void {
  // Nothing on the wire: the run ends at once, its summary the next line.
  if (ctx.out.mode === 'json' || onTheWire === 0) return;
  const requests = `${onTheWire.toLocaleString('en')} request${onTheWire === 1 ? '' : 's'}`;
  ctx.out.notice(`stopping: ${requests} in flight; interrupt again to stop now`);
}

/** The line a resumed run (BulkVerb.fromJournal) starts with: which run, how far it got. */
function resuming(
  journal: Journal,
  done: number,
  left: number | undefined,
  dryRun: boolean,
  note?: string,
): string {
  const toDo = left === undefined ? '' : `, ${left.toLocaleString('en')} to do`;
  // A run that finished with failures is taken up again for them; one that finished with every
  // item done (its journal left behind: it could not be removed) is shown again; one cut short, or
  // whose end its journal does not say (a kill, a full disk, an earlier svc), is resumed.
  // One an earlier svc took up after it finished (it marks neither its start nor its end): taken up again, its end unknown.
  const finished = journal.earlierFinish();
  const allDone = journal.earlierAllDone();
  const takenUp = journal.earlierTakenUp();
  // What the run does with it, and its end (the machine's time: Journal.markFinished), said beside
  // the machine's start.
  const [again, ended] =
    finished !== undefined
      ? ['taking up the failures of', `it finished at ${finished}`]
      : allDone !== undefined
        ? ['showing again', `it finished at ${allDone}, every item done`]
        : takenUp !== undefined
          ? [
              'taking up again',
              `it finished at ${takenUp}; an earlier svc took it up since, and whether that run finished is not recorded`,
            ]
          : ['resuming', ''];
  const what = !dryRun ? again : again === 'showing again' ? `a dry run, ${again}` : `a dry run of ${again}`;
  // The run's start as its other lines give it: on the platform's clock (its anchor) when that was
  // more than a minute off this machine's (review s11, oncall 4: one start, two times hours apart).
  const anchor = journal.knownPlatformStart() ?? journal.knownAnchor();
  const started =
    anchor !== undefined && Math.abs(anchor - journal.run.startedAtMs) >= CLOCK_SKEW_MS
      ? `${isoSeconds(anchor)} on the platform's clock (${isoSeconds(journal.run.startedAtMs)} on this machine's${ended && `; ${ended}`})`
      : `${isoSeconds(journal.run.startedAtMs)}${ended && ` (${ended})`}`;
  return `${what} the run started at ${started}: ${done.toLocaleString('en')} done${toDo} (journal ${journal.path})${note ? `; ${note}` : ''}`;
}

/** The items an earlier run finished (journal rows), then the source's others. */
async function* withEarlier<T>(
  earlier: Array<BulkItem<T>>,
  source: Iterable<BulkItem<T>> | AsyncIterable<BulkItem<T>>,
): AsyncGenerator<BulkItem<T>> {
  yield* earlier;
  const shown = new Set(earlier.map((item) => item.key));
  for await (const item of source) if (!shown.has(item.key)) yield item;
}

/** What a dry run's progress bar says it is doing. */
export const DRY_RUN_DOING = 'checking (dry run)';

/** A dry run's word for what would happen: `grant`, `skip`, `fail`, or `unknown` (not checked). */
const PLAN: Partial<Record<BulkResult['status'], string>> = {
  skipped: 'skip',
  failed: 'fail',
  unknown: 'unknown',
};
