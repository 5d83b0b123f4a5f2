import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { counted } from '../output/format.js';
import { PROBLEMS_SHOWN, ProblemReport } from '../output/problems.js';
import { BULK_INPUT_LIMITS, bulkInputTooLarge } from './input.js';

/** A line of an input file: a good item, or what is wrong with it. */
export type LineVerdict = { line: number; problems: string[] } | { line: number; row: unknown };

/**
 * Checks a whole input before anything is sent: every problem is printed as `FILE:LINE:
 * message` as it is found (the first thousand lines of them; with --json/--ndjson they are the
 * error's details instead), and any problem is a usage error (exit 2) saying nothing was sent.
 * Returns how many items the input holds. Past `maxRows` rows (good or bad) the reading stops:
 * the input is refused whole (BULK_INPUT_LIMITS), exit 2.
 */
export async function checkInput(
  ctx: Context,
  label: string,
  verdicts: AsyncIterable<LineVerdict>,
  hint: string,
  maxRows = BULK_INPUT_LIMITS.rows,
): Promise<number> {
  const report = new ProblemReport(ctx, label);
  let good = 0;
  let bad = 0;
  for await (const verdict of verdicts) {
    if (good + bad === maxRows) throw bulkInputTooLarge(label, `${maxRows.toLocaleString('en')} rows`);
    if ('row' in verdict) good++;
    else if (bad++ < PROBLEMS_SHOWN) for (const p of verdict.problems) report.add(verdict.line, p);
  }
  if (bad === 0) return good;
  report.more(bad - PROBLEMS_SHOWN, 'lines with problems');
  const lines = counted(bad, `line of ${label} has`, `lines of ${label} have`);
  throw new UsageError(`${lines} problems; nothing was sent`, {
    code: 'invalid_file',
    hint,
    details: report.details,
  });
}
