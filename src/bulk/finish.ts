// Over 300 lines: how every bulk run ends (done, halted, cut, a dry run and its halts) is one set of
// rules over the same counts and words; split, the real and the dry run would drift apart.
import { isoSeconds } from '../api/time.js';
import type { Context } from '../context.js';
import {
  AuthError,
  ClosedPipeError,
  InterruptedError,
  OutputCutError,
  PartialFailureError,
  STDOUT_FAILED_HINT,
  StdoutClosedError,
  StdoutFailedError,
  SvcError,
} from '../errors.js';
import { type ApiError, OutcomeUnknownError } from '../http/errors.js';
import { counted, countedOf } from '../output/format.js';
import { fileErrorReason } from '../system/input.js';
import { pathWord } from '../system/shell-words.js';
import type { Journal } from './journal.js';
import { JournalWriteError } from './journal-disk.js';
import { callerRefused, connectionRefused, waitsBeyondCap } from './judge.js';
import type { BulkSummary } from './runner.js';

const n = (count: number) => count.toLocaleString('en');

interface Words {
  words: { act: string; done: string };
  /** After the counts: the tenant the items were changed in (BulkVerb.where). */
  where?: (() => string) | undefined;
  describe(row: never): string;
  retryHint?: string | (() => string) | undefined;
  fixHint?: string | (() => string) | undefined;
  keepJournal?: (() => boolean) | undefined;
  madeThoughFailed?: (() => string | undefined) | undefined;
  unchecked?: (() => string | undefined) | undefined;
}

/**
 * The counts said before a run's error, in every output mode (attack26a F11: --json left them out,
 * though it says a run's success): the summary line the contract promises on stderr; the error
 * object after it stays the last line of stderr (README, Output: `… 2>&1 >/dev/null | tail -1 | jq`).
 */
function countsBeforeError(ctx: Context, text: string): void {
  ctx.out.info(text);
}

/**
 * The error of a run (or a dry run) whose items failed, by one rule (attack26a F11; README, under
 * `webhooks replay`: "One named id … is a single change"): exit 7 whenever a bulk run ends with
 * failed items, as many as they are, all of them too: 7 says "the run finished; its rows say which
 * failed, and the same command resumes it", true of one of one as of one of ten (a file of one row
 * is a bulk run). The error's code says which: `partial_failure` when some item was done (or
 * skipped: nothing to do) or may have been (its outcome unknown, or a failed row that says its
 * change was made: review27a F5), `every_item_failed` when every row says failed and none made,
 * and a dry run's `would_fail`, for nothing ran. One named item (`webhooks replay W D`, `dlq discard W E`) is no bulk run: it ends with its own error and exit code, as `webhooks
 * get W` would (BulkVerb.single, `end.single` below).
 */
function failedItems(
  summary: BulkSummary,
  message: string,
  options: { hint: string; dryRun?: boolean; made?: string | undefined },
): SvcError {
  // A failed row that says its change was made (runner.ts failedButMade, the verb's
  // madeThoughFailed) is not "nothing done".
  const noneDone =
    summary.ok === 0 &&
    summary.skipped === 0 &&
    summary.unknown === 0 &&
    !summary.failedMade &&
    options.made === undefined;
  return new PartialFailureError(message, {
    hint: options.hint,
    ...(options.dryRun ? { code: 'would_fail' } : noneDone ? { code: 'every_item_failed' } : {}),
  });
}

/** "2 of 3 items failed: line 4: user usr_x not found; …" — the first few named. */
function failed(count: number, total: number, verb: Words, rows: unknown[], what = 'failed'): string {
  return `${countedOf(count, total, 'item')} ${what}${named(count, verb, rows)}`;
}

/** `: line 4: user usr_x not found; and 2 more`, or nothing when no row is at hand. */
function named(count: number, verb: Words, rows: unknown[]): string {
  const text = rows.map((row) => verb.describe(row as never)).join('; ');
  const more = count > rows.length ? `; and ${n(count - rows.length)} more` : '';
  return text ? `: ${text}${more}` : '';
}

/** `12 of 40`, or `12 items` when the total is not known (a stream). */
function howFar(summary: BulkSummary, total: number | undefined): string {
  return total === undefined ? counted(summary.total, 'item') : `${n(summary.total)} of ${n(total)}`;
}

/**
 * How a run is taken up again. Its journal is its caller's (caller.ts: the profile, and the user a
 * login's token names or the API key), so the same command as another user is a run of its own,
 * not this one's resume, while a new login of the same user (after a credential stopped working)
 * resumes it: the words say who, not which secret (review17c C5). `purpose`: `to resume`, `to
 * settle them`, `after T to resume`.
 */
function runAgain(purpose: string, journal: string, note = ''): string {
  return `run the same command again with the same profile, logged in as the same user or with the same API key, ${purpose} (journal ${journal}${note})`;
}

/**
 * How to settle the items whose outcome is unknown. An answer lost (none came, a 5xx): the same
 * command sends the same key and is answered from the platform's record. An answer the server
 * gave (2xx) that svc cannot read: the same command sends the same key and, from a server that
 * stores its answers, gets the same answer, so it settles nothing of those: they are checked on
 * the platform (review19 F2).
 */
function settleUnknown(summary: BulkSummary, journal: string): string {
  const accepted = summary.acceptedUnread ?? 0;
  const lost = summary.unknown - accepted;
  if (accepted === 0) return runAgain('to settle them', journal);
  const check = `the server accepted ${n(accepted)} of them (HTTP 2xx) in an answer svc cannot read: check on the platform whether each was made; running the same command again sends the same idempotency key and may be answered the same`;
  return lost > 0
    ? `${runAgain(`to settle the ${n(lost)} whose answer was lost`, journal)}; ${check}`
    : `${check} (journal ${journal})`;
}

/**
 * Removes the journal of a run that is over. One that cannot be removed (a read-only disk) stays:
 * the run's result stands, and the returned line says where it is and what it makes the same
 * command do (`rerun`), which a new run of it would otherwise not (fix-files18 #3); undefined once
 * it is gone. A run's journal left so is marked finished (`ended`: with failures, or every item
 * done) where it can still take a line, so that the same command, run before it is removed, says
 * it takes up a finished run, not that it resumes one cut short (review22a F4).
 */
export function leftJournal(
  journal: Journal,
  rerun = 'print these results again and do nothing',
  ended?: 'failures' | 'all_done',
): string | undefined {
  const why = journal.remove();
  if (why === undefined) return undefined;
  if (ended !== undefined) {
    try {
      journal.markFinished(ended === 'failures');
    } catch {
      // A disk that takes no line either (read-only): the line below says to remove it first.
    }
  }
  return `the run's result stands, but its journal ${journal.path} could not be removed (${why}): the same command would ${rerun}; remove it (\`rm ${pathWord(journal.path)}\`) before you run it again`;
}

/**
 * A run that ended with every item tried keeps its journal for its failures: the journal says so
 * (Journal.markFinished), so that a later run's words call it a finished run, not an interrupted
 * one. A journal that cannot take the line (a full disk) is left as it is and the run's result
 * stands, but the run says so, and what the same command will then say: that it resumes a run cut
 * short (the words of a journal without the line; review22a F4).
 */
function keptFinished(ctx: Context, journal: Journal, failures = true): void {
  try {
    journal.markFinished(failures);
  } catch (error) {
    const why = fileErrorReason(error instanceof SvcError && error.cause !== undefined ? error.cause : error);
    const not = failures
      ? 'taking up the failures of a finished run'
      : 'showing again a run that finished with every item done';
    ctx.out.warn(
      `this run's end could not be written to its journal ${journal.path} (${why}): the same command will say it is resuming a run cut short, not ${not}; what it does is the same`,
    );
  }
}

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

/**
 * The error that stopped reading a run's items, saying how far the run got and how to resume;
 * its class, code, answer and exit code are kept (as the listing's "incomplete" words are).
 */
function unreadError(error: unknown, of: string, resume: string): unknown {
  if (!(error instanceof SvcError)) return error;
  const hint = error.hint ? `${error.hint}; then ${resume}` : resume;
  return Object.assign(error, { message: `stopped after ${of}: ${error.message}`, hint });
}

/**
 * The error of a run halted because its journal could not be written (a full disk): how far it
 * got, the changes made that the journal lacks (ok rows, `not_journaled`), exit 1; the re-run
 * finds those done on the platform and does the rest.
 */
function unjournaled(
  error: JournalWriteError,
  verb: Words,
  summary: BulkSummary,
  of: string,
  resume: string,
) {
  const lacking = summary.unjournaled ?? 0;
  const made = lacking > 0 ? `, ${n(lacking)} of them ${verb.words.done} but not journaled` : '';
  return error.said(
    `; stopped after ${of}${made}`,
    `make room on its disk, then ${resume}${lacking > 0 ? '; it finds what was not journaled done' : ''}`,
  );
}

/** How `count` items of an unknown outcome end: "may have made it" of one, "them" of more. */
const unknownWords = (count: number) =>
  `with an unknown outcome (the platform may have made ${count === 1 ? 'it' : 'them'}; no answer svc could believe said whether it did)`;

/**
 * The error of a run halted because no later item could succeed (the credential is gone, rejected
 * or someone else's): its own words, exit 3, its hint followed by how to resume; a rate limit
 * asking for a longer wait than svc makes: exit 7, when to run it again. A verb's own
 * reason (BulkVerb.halts) is its error as it is.
 */
function halted(error: unknown, resume: string, journal: string, of: string, left: boolean): SvcError {
  // Said only when some were left (review24e L3: "stopped after 1 of 1 … not started").
  const notSent = (what: string) => (left ? `; the ${what} not started were not sent` : '');
  const wait = waitsBeyondCap(error);
  if (wait !== undefined) {
    // The platform asked for a longer quiet than svc waits: the rest was not sent into it.
    return new PartialFailureError(
      `stopped after ${of}: the platform rate-limits this run and asks for a wait of ${seconds(wait.askedMs)} s, longer than svc waits by itself (${seconds(wait.capMs)} s)${notSent('rows')}`,
      {
        code: 'rate_limited',
        hint: runAgain(`after ${isoSeconds(wait.until)} to resume`, journal),
        cause: error,
      },
    );
  }
  if (connectionRefused(error)) {
    // The platform is not listening: nothing more was sent into refused connections.
    return new SvcError(
      'failure',
      `stopped after ${of}: ${(error as SvcError).message}, so the platform is not reachable now${notSent('items')}`,
      {
        code: 'connection_refused',
        hint: `once the platform answers again (is the server running? check --base-url and your network or proxy settings), ${resume}`,
        cause: error,
      },
    );
  }
  if (callerRefused(error)) {
    // The caller lost the right to do this (a role revoked mid-run): the rest was not sent into it.
    const refusal = error as ApiError;
    return new SvcError(
      'forbidden',
      `stopped after ${of}: the platform refused an item because the caller's roles do not allow it now (${refusal.message})${left ? '; an item that needs the same permission would be refused alike, so the items not started were not sent' : ''}`,
      {
        code: refusal.code ?? 'insufficient_role',
        hint: `once the caller holds a role that allows it (ask a tenant_admin), ${resume}: the items refused are tried again`,
        cause: error,
      },
    );
  }
  const svc = error instanceof SvcError ? error : undefined;
  // The verb's own reason (BulkVerb.halts): its words and hint say how to go on.
  if (svc && svc.category !== 'auth') return svc;
  const hint = svc?.hint ? `${svc.hint}, then ${resume}` : resume;
  return new AuthError(svc?.message ?? String(error), {
    code: svc?.code ?? 'unauthenticated',
    hint,
    cause: error,
  });
}

const seconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * Ends a dry run: what would happen, counted; exit 7 when some items would fail, or the error of
 * a one-item run (`single`), with the exit code the real run would end with.
 */
export function finishDryRun(
  ctx: Context,
  verb: Words,
  summary: BulkSummary,
  failures: unknown[],
  single?: unknown,
  end: { total?: number | undefined; closed?: boolean; unknowns?: unknown[]; callerRefused?: boolean } = {},
): void {
  if (summary.halted !== undefined) throw haltedDryRun(ctx, verb, summary, end.total, single);
  // Items that could not be read: nothing was changed, and the dry run says what stopped it.
  if (summary.unread !== undefined) throw summary.unread;
  let cut = '';
  let notStarted = 0;
  if (end.closed) {
    // A dry run only reads: a failed write says so; a reader gone away ends it quietly, as a
    // listing, unless it has found what its exit code says already (rows that would fail or could
    // not be checked, a one-item run's error): that outcome stands, for the rows it checked.
    const failure = ctx.out.stdoutFailure;
    const of = howFar(summary, end.total);
    if (failure !== undefined) {
      throw new StdoutFailedError(`cannot write to stdout (${failure}) after ${of}; nothing was changed`, {
        hint: STDOUT_FAILED_HINT,
      });
    }
    if (single === undefined && !summary.failed && !summary.unknown) {
      // Every row checked and none would fail: as a listing, quietly. Rows left unchecked are
      // no verdict: 0 would pass a file whose later row fails (review s15b R15b-1).
      if (end.total !== undefined && summary.total >= end.total) throw new ClosedPipeError();
      throw new StdoutClosedError(
        `stdout closed after ${of}: the rest was not checked; nothing was changed`,
        {
          hint: 'run the dry run again with its output in a file (or --json) to check every row',
        },
      );
    }
    cut = `; stdout closed after ${of}: the rest was not checked`;
    notStarted = end.total === undefined ? 0 : end.total - summary.total;
  }
  const counts = dryRunCounts(verb, summary, notStarted);
  // Stopped by Ctrl-C; a closed stdout's stop (end.closed) ends with what the rows checked say.
  if (summary.stopped && !end.closed)
    throw new InterruptedError(`interrupted after ${counted(summary.total, 'item')}; nothing was changed`);
  if (single !== undefined) {
    ctx.out.info(`dry run: ${counts}; nothing was changed`);
    throw single;
  }
  if (summary.unknown) {
    // Not a prediction: the server did not answer these checks. The rows may be fine, so they are
    // not blamed (exit 7, "fix them"); the dry run as a whole failed (exit 1), as `svc plan` does.
    countsBeforeError(ctx, `dry run: ${counts}`);
    const fail = summary.failed
      ? `; ${failed(summary.failed, summary.total, verb, failures, 'would fail')}`
      : '';
    throw new SvcError(
      'failure',
      `${failed(summary.unknown, summary.total, verb, end.unknowns ?? [], 'could not be checked')}${fail}${cut}`,
      {
        code: 'not_checked',
        hint: `nothing was changed; the rows may be fine: ${uncheckedWhy(summary)}${summary.failed ? ' (and fix the rows that would fail)' : ''}`,
      },
    );
  }
  if (summary.failed && end.callerRefused) {
    // The real run stops at the first row the caller's roles do not allow (403 insufficient_role,
    // exit 4): the dry run ends as it will (review24e L3: it said 7).
    countsBeforeError(ctx, `dry run: ${counts}`);
    throw new SvcError(
      'forbidden',
      `${failed(summary.failed, summary.total, verb, failures, 'would fail')}${cut}; the real run would stop at the first the caller's roles do not allow`,
      {
        code: 'insufficient_role',
        hint: 'nothing was changed; once the caller holds a role that allows it (ask an administrator), run it without --dry-run',
      },
    );
  }
  if (summary.failed) {
    countsBeforeError(ctx, `dry run: ${counts}`);
    throw failedItems(
      summary,
      `${failed(summary.failed, summary.total, verb, failures, 'would fail')}${cut}`,
      { hint: 'nothing was changed; fix them before running without --dry-run', dryRun: true },
    );
  }
  ctx.out.info(`dry run: ${counts}; nothing was changed`);
}

/** Why a dry run's rows could not be checked, and whether running it again helps. */
function uncheckedWhy(summary: BulkSummary): string {
  const words = summary.unknownWords ?? 0;
  if (words === 0) return 'the server did not answer their checks; run the dry run again';
  const said = 'in words svc does not know (each row says which)';
  return words === summary.unknown
    ? `the server answered their checks ${said}; a dry run again is answered the same`
    : `the server did not answer some of their checks, and answered ${n(words)} ${said}; run the dry run again for the others`;
}

function dryRunCounts(verb: Words, summary: BulkSummary, notStarted = 0): string {
  const unchecked = summary.unknown ? `, ${n(summary.unknown)} could not be checked` : '';
  const left = notStarted > 0 ? `, ${n(notStarted)} not started` : '';
  // What no row was checked against (BulkVerb.unchecked): the counts are no promise of it.
  const caveat = verb.unchecked?.();
  return `${n(summary.ok)} would be ${verb.words.done}, ${n(summary.skipped)} would be skipped, ${n(summary.failed)} would fail${unchecked}${left}${caveat ? `; ${caveat}` : ''}`;
}

/**
 * The error of a dry run halted because no later check could be answered: a rate limit asking
 * for a longer wait than svc makes ends it with its counts, the wait and when to run it again
 * (exit 1, as a check the server did not answer); a one-item run's, or a credential's, error as it is.
 */
function haltedDryRun(
  ctx: Context,
  verb: Words,
  summary: BulkSummary,
  total: number | undefined,
  single: unknown,
): unknown {
  const wait = waitsBeyondCap(summary.halted);
  if (wait === undefined || single !== undefined) return summary.halted;
  const notStarted = total === undefined ? 0 : total - summary.total;
  countsBeforeError(ctx, `dry run: ${dryRunCounts(verb, summary, notStarted)}`);
  return new SvcError(
    'failure',
    `stopped after ${howFar(summary, total)}: the platform rate-limits this dry run and asks for a wait of ${seconds(wait.askedMs)} s, longer than svc waits by itself (${seconds(wait.capMs)} s); the rows not started were not checked`,
    {
      code: 'rate_limited',
      hint: `nothing was changed; run the dry run again after ${isoSeconds(wait.until)}`,
      cause: summary.halted,
    },
  );
}
