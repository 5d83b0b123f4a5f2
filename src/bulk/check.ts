import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

/** Problem lines printed before the summary error; the rest are counted. */
const SHOWN = 1000;

/** A line of an input file: a good item, or what is wrong with it. */
export type LineVerdict = { line: number; problems: string[] } | { line: number; row: unknown };

/**
 * Checks a whole input before anything is sent: every problem is printed as `FILE:LINE:
 * message` as it is found (the first thousand lines of them), and any problem is a usage error
 * (exit 2) saying nothing was sent. Returns how many items the input holds.
 */
export async function checkInput(
  ctx: Context,
  label: string,
  verdicts: AsyncIterable<LineVerdict>,
  hint: string,
): Promise<number> {
  let good = 0;
  let bad = 0;
  for await (const verdict of verdicts) {
    if ('row' in verdict) good++;
    else if (bad++ < SHOWN) for (const p of verdict.problems) ctx.out.info(`${label}:${verdict.line}: ${p}`);
  }
  if (bad === 0) return good;
  if (bad > SHOWN) ctx.out.info(`… and ${(bad - SHOWN).toLocaleString('en')} more lines with problems`);
  const lines = `${bad.toLocaleString('en')} ${bad === 1 ? 'line' : 'lines'} of ${label} ${bad === 1 ? 'has' : 'have'}`;
  throw new UsageError(`${lines} problems; nothing was sent`, { code: 'invalid_file', hint });
}
