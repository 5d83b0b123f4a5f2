// What becomes of a bulk run's journal at its end: removed, or kept and marked finished.
import type { Context } from '../context.js';
import { SvcError } from '../errors.js';
import { fileErrorReason } from '../system/input.js';
import { pathWord } from '../system/shell-words.js';
import type { Journal } from './journal.js';

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
export function keptFinished(ctx: Context, journal: Journal, failures = true): void {
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
