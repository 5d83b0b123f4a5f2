// How every bulk run ends (done, failed, halted, cut, stopped): one set of rules over the run's counts.
// Its words, shared with a dry run's end (./dry-run-end.ts), are ./run-words.ts; the errors of a run
// halted ./halt-errors.ts; what becomes of its journal ./journal-end.ts.
import type { Context } from '../context.js';
import {
  InterruptedError,
  OutputCutError,
  StdoutClosedError,
  StdoutFailedError,
  type SvcError,
} from '../errors.js';
import { OutcomeUnknownError } from '../http/errors.js';
import { counted } from '../output/format.js';
import { halted, unjournaled, unreadError } from './halt-errors.js';
import type { Journal } from './journal.js';
import { JournalWriteError } from './journal-disk.js';
import { keptFinished, leftJournal } from './journal-end.js';
import {
  countsBeforeError,
  failed,
  failedItems,
  howFar,
  n,
  named,
  runAgain,
  settleUnknown,
  unknownWords,
  type Words,
} from './run-words.js';
import type { BulkSummary } from './summary.js';

/** Every item of a run with a known total was started and ended (none halted or left unread). */
function everyItemEnded(end: RunEnd): boolean {
  const { summary } = end;
  return (
    end.total !== undefined &&
    summary.total >= end.total &&
    summary.halted === undefined &&
    summary.unread === undefined
  );
}

/** Some item failed or its outcome is unknown (or a one-item run's error): the run's outcome is that. */
const anyFailed = (end: RunEnd): boolean =>
  end.summary.failed > 0 || end.summary.unknown > 0 || end.single !== undefined;

/**
 * A reader gone after every item was done, some of them failed: the closed stdout cut nothing,
 * and the run's outcome is known (7 with the failures named, a one-item run's own error), so it
 * ends with it, as with its reader there, not with "stdout closed … resume" (141). A failed write
 * (a full disk) still says so.
 */
function cutNothing(ctx: Context, end: RunEnd): boolean {
  return everyItemEnded(end) && anyFailed(end) && ctx.out.stdoutFailure === undefined;
}

/**
 * A reader gone after every item was done and none failed: only the output was cut, which the
 * reader chose (`| head -1`). Still 141, the contract's code for a closed stdout during a change,
 * and the journal stays (the contract: "the journal allows resume"): the same command prints the
 * results from it and does nothing again (a replay is not sent twice), then removes it. A verb
 * that still owes something done its end (keepJournal: a replay not followed) says how to resume;
 * so does a failed write (a full disk).
 */
function onlyOutputCut(ctx: Context, verb: Words, end: RunEnd): SvcError | undefined {
  if (ctx.out.stdoutFailure !== undefined || !everyItemEnded(end) || anyFailed(end) || verb.keepJournal?.())
    return undefined;
  return new OutputCutError(
    `stdout closed, but every item was done (${howFar(end.summary, end.total)}): only the output was cut`,
    end.summary.ok,
    { hint: runAgain('to print the results from its journal; nothing is done again', end.journal.path) },
  );
}

export interface RunEnd {
  summary: BulkSummary;
  total: number | undefined;
  failures: unknown[];
  /** The first few rows whose outcome is unknown. */
  unknowns: unknown[];
  journal: Journal;
  /** stdout's reader went away, or a write to it failed (ctx.out.stdoutFailure), during the run. */
  closed: boolean;
  /** The error of a one-item run (BulkVerb.single): it becomes the command's error. */
  single: unknown;
}

/**
 * Ends a run the same way for every bulk verb: a summary on stderr; the journal kept while an
 * item may still be owed (removed otherwise); exit 3 when the credential stopped working (a halt),
 * 130 after Ctrl-C, 141 after a closed stdout (1 after a failed write to it: a full disk), 7 when
 * some items failed or their outcome is unknown.
 */
export function finishRun(ctx: Context, verb: Words, end: RunEnd): void {
  const { summary, journal } = end;
  // Halted by a made item's follow-up read when every item had started: the halt stopped nothing,
  // so the run ends on its rows (a replay made, how it went not known: exit 7), not "stopped".
  if (
    summary.haltedAfterMade &&
    !ctx.signal.aborted &&
    end.total !== undefined &&
    summary.total >= end.total &&
    summary.unread === undefined
  ) {
    summary.halted = undefined;
    summary.stopped = false;
    delete summary.haltedAfterMade;
  }
  const gone = summary.gone
    ? ` (${n(summary.gone)} found done by a retry after the answer to the first attempt was lost)`
    : '';
  // Made by the run this one resumes (its not-journaled or unanswered items): not this run's count.
  const earlier = summary.earlierRun ?? 0;
  const parts =
    summary.ok - earlier > 0 || earlier === 0 ? [`${n(summary.ok - earlier)} ${verb.words.done}${gone}`] : [];
  if (earlier) parts.push(`${n(earlier)} ${verb.words.done} by the run this one resumes`);
  if (summary.skipped) parts.push(`${n(summary.skipped)} skipped`);
  if (summary.failed) {
    const why = [
      summary.blocked ? `${n(summary.blocked)} not attempted: what they need failed` : '',
      summary.stoppedRows
        ? `${n(summary.stoppedRows)} stopped before ${summary.stoppedRows === 1 ? 'its' : 'their'} next request was sent`
        : '',
      verb.madeThoughFailed?.() ?? '',
    ].filter(Boolean);
    parts.push(`${n(summary.failed)} failed${why.length ? ` (${why.join('; ')})` : ''}`);
  }
  // Rows shown `failed` with `"outcome": "unknown"` (the contract's three statuses) are no failure
  // in the counts: the platform may have made them, so they are counted apart, never as failed.
  if (summary.unknown) parts.push(`${n(summary.unknown)} with an unknown outcome`);
  // A run cut short (a halt, Ctrl-C, a closed stdout) counts the items it never started, so the
  // counts add up to the file's.
  const cut = end.closed || summary.halted !== undefined || summary.stopped || summary.unread !== undefined;
  const notStarted = cut && end.total !== undefined ? end.total - summary.total : 0;
  if (notStarted > 0) parts.push(`${n(notStarted)} not started`);
  // `2 granted in acme-treasury (0.4 s)`: the time in parentheses, so a tenant named before it
  // does not read as a second "in" (`… in acme-treasury in 0.4 s`, session 25's closing note).
  const line = `${parts.join(', ')}${verb.where?.() ?? ''} (${(summary.elapsedMs / 1000).toFixed(1)} s)`;
  const resume = runAgain('to resume', journal.path);
  const of = howFar(summary, end.total);
  if (end.closed && !cutNothing(ctx, end)) {
    countsBeforeError(ctx, line);
    // Every item done and none failed, only the output cut (or its write failed): the journal
    // kept says the run finished, so the same command says it shows the run again, not that it
    // resumes one cut short (s23: unmarked, it said "resuming").
    if (everyItemEnded(end) && !anyFailed(end) && !verb.keepJournal?.()) keptFinished(ctx, journal, false);
    const cut = onlyOutputCut(ctx, verb, end);
    if (cut !== undefined) throw cut;
    const failure = ctx.out.stdoutFailure;
    if (failure !== undefined) {
      throw new StdoutFailedError(`cannot write to stdout (${failure}) after ${of}`, { hint: resume });
    }
    throw new StdoutClosedError(`stdout closed after ${of}`, { hint: resume });
  }
  if (summary.halted !== undefined) {
    // Like Ctrl-C: nothing new was started and the journal is kept; what to do first is to log in.
    countsBeforeError(ctx, line);
    if (summary.halted instanceof JournalWriteError)
      throw unjournaled(summary.halted, verb, summary, of, resume);
    throw halted(summary.halted, resume, journal.path, of, notStarted > 0 || end.total === undefined);
  }
  // A one-item run stopped with its outcome unknown ends with that item's own error below (the
  // outcome, how to settle it, `"outcome": "unknown"`), exit 130 still (review28e M1).
  if (summary.stopped && !(end.single instanceof OutcomeUnknownError)) {
    countsBeforeError(ctx, line);
    throw new InterruptedError(`interrupted after ${of}`, { hint: resume });
  }
  if (summary.unread !== undefined) {
    // The items could not be read further (a queue's next page): the run ends with that error
    // (its exit code), after the counts of what it did and with how to resume it.
    countsBeforeError(ctx, line);
    throw unreadError(summary.unread, of, resume);
  }
  if (end.single !== undefined) {
    // One named item that failed: its error, with its exit code. Keep the journal only when the
    // server may have done it (no definite answer), so the same command resends the same key.
    if (summary.refused === summary.failed && summary.unknown === 0) {
      const left = leftJournal(journal, 'resume this run (its item tried again)', 'failures');
      if (left !== undefined) ctx.out.warn(left);
    } else keptFinished(ctx, journal);
    if (end.single instanceof OutcomeUnknownError) {
      throw end.single.withHint(
        `${runAgain('to settle it', journal.path)}: it sends the same idempotency key`,
      );
    }
    throw end.single;
  }
  if (summary.failed || summary.unknown) {
    countsBeforeError(ctx, line);
    if (summary.unsettled === 0 && summary.unknown === 0 && !verb.keepJournal?.()) {
      const left = leftJournal(
        journal,
        'resume this run (the rows done said done, the failed ones tried again)',
        'failures',
      );
      if (left !== undefined) ctx.out.warn(left);
    } else keptFinished(ctx, journal);
    const hint = typeof verb.retryHint === 'function' ? verb.retryHint() : verb.retryHint;
    const fixHint = typeof verb.fixHint === 'function' ? verb.fixHint() : verb.fixHint;
    const settle = settleUnknown(summary, journal.path);
    // Every failed row is a change not so now (changed_since): the file is right, and the same
    // command makes them anew (a new key each), as their own hints say (review20 F5) — with
    // their condition: another admin may have revoked a grant on purpose (review20c F7).
    const anew =
      summary.unsettled > 0 && summary.unsettled === summary.undoneSince
        ? `if the ${n(summary.unsettled)} changed since should still be as asked (another admin may have changed them on purpose), ${runAgain('to make them anew (a new request each)', journal.path)}${summary.unknown ? `; for the unknown ones, ${settle}` : ''}`
        : undefined;
    const again =
      anew !== undefined
        ? anew
        : summary.unsettled > 0
          ? fixHint
            ? `${fixHint}; or ${runAgain('to retry the failed rows', journal.path, '; delete it once the fixed file has run')}`
            : `fix them and ${resume}`
          : summary.unknown > 0
            ? hint && summary.failed
              ? `${hint}; for the unknown ones, ${settle}`
              : settle
            : (hint ?? 'nothing is left to resume');
    const message = summary.failed
      ? `${failed(summary.failed, summary.total, verb, end.failures)}${summary.unknown ? `; ${n(summary.unknown)} ended ${unknownWords(summary.unknown)}${named(summary.unknown, verb, end.unknowns)}` : ''}`
      : failed(summary.unknown, summary.total, verb, end.unknowns, `ended ${unknownWords(summary.unknown)}`);
    throw failedItems(summary, message, {
      made: verb.madeThoughFailed?.(),
      // With --json/--ndjson every result is on stdout already.
      hint: ctx.out.isMachine ? again : `${again}; --ndjson prints one result per item`,
    });
  }
  // Something done is still owed its end (a replay not followed to its delivery): no ✓ for that,
  // and the verb's error follows (keepJournal).
  if (verb.keepJournal?.()) countsBeforeError(ctx, line);
  else {
    const left = leftJournal(journal, undefined, 'all_done');
    ctx.out.success(line);
    if (left !== undefined) ctx.out.warn(left);
  }
}

/**
 * What a run says when a second Ctrl-C ends it at once (src/system/interrupts.ts): how far it
 * got, the items then in flight (their outcome unknown: not journaled, the resumed run sends them
 * again with the same keys) and how to resume it; a dry run, that nothing was changed.
 */
export function abandonedRun(
  progress: { done: number; inFlight: number; total: number | undefined },
  journal: { path: string } | undefined,
): InterruptedError {
  const { done, inFlight, total } = progress;
  const of = total === undefined ? counted(done, 'item') : `${n(done)} of ${n(total)}`;
  const stopped = `interrupted again, so svc stopped at once after ${of}`;
  if (journal === undefined) return new InterruptedError(`${stopped}; nothing was changed`);
  const one = inFlight === 1;
  const flying =
    inFlight === 0
      ? ''
      : `; ${n(inFlight)} more ${one ? 'was' : 'were'} in flight: the platform may have made ${one ? 'it' : 'them'}`;
  const again =
    inFlight === 0 ? '' : `: it sends ${one ? 'that one' : 'those'} again with the same idempotency keys`;
  return new InterruptedError(`${stopped}${flying}`, {
    hint: `${runAgain('to resume', journal.path)}${again}`,
  });
}
