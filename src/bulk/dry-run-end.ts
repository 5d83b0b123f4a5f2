// How a dry run of a bulk verb ends: what would happen, counted, and the code its real run would end with.
import { isoSeconds } from '../api/time.js';
import type { Context } from '../context.js';
import {
  ClosedPipeError,
  InterruptedError,
  STDOUT_FAILED_HINT,
  StdoutClosedError,
  StdoutFailedError,
  SvcError,
} from '../errors.js';
import { counted } from '../output/format.js';
import { waitsBeyondCap } from './judge.js';
import { countsBeforeError, failed, failedItems, howFar, n, seconds, type Words } from './run-words.js';
import type { BulkSummary } from './summary.js';

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
