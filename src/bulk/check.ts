import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { counted } from '../output/format.js';
import { PROBLEMS_SHOWN, ProblemReport } from '../output/problems.js';
import { sym } from '../output/symbols.js';
import { BULK_INPUT_LIMITS, bulkInputTooLarge } from './input.js';

/**
 * A problem many lines can share word for word (a listing's rows of another tenant): on a terminal
 * or a pipe it is said once with the lines it is of (`lines 2, 3, 4 … and 4,997 more are …`), not
 * once a line. `one` is also in the line's `problems` (what --json/--ndjson carry, a record a line:
 * a program matches problems to lines); `many` is said after the lines (`are of tenant …`), else
 * `one` after a colon. `key` tells the groups apart.
 */
export interface SharedProblem {
  key: string;
  one: string;
  many?: string;
}

/** A line of an input file: a good item, or what is wrong with it. */
export type LineVerdict =
  | { line: number; problems: string[]; shared?: SharedProblem[] }
  | { line: number; row: unknown };

/**
 * Checks a whole input before anything is sent: every problem is printed as `FILE:LINE:
 * message` as it is found (the first thousand lines of them; with --json/--ndjson they are the
 * error's details instead), a shared one once for all its lines at the end (SharedProblem), and
 * any problem is a usage error (exit 2) saying nothing was sent.
 * Returns how many items the input holds. Past `maxRows` rows (good or bad) the reading stops:
 * the input is refused whole (BULK_INPUT_LIMITS), exit 2. A `hint` given as a function is asked
 * once every line is read (what to say may depend on the problems found).
 */
export async function checkInput(
  ctx: Context,
  label: string,
  verdicts: AsyncIterable<LineVerdict>,
  hint: string | (() => string),
  maxRows = BULK_INPUT_LIMITS.rows,
): Promise<number> {
  const report = new ProblemReport(ctx, label);
  const machine = ctx.out.isMachine;
  const groups = new Map<string, { problem: SharedProblem; lines: number[]; count: number }>();
  let good = 0;
  let bad = 0;
  // Lines whose problems were each said (or carried in details); the rest are counted after them.
  let shown = 0;
  let unshown = 0;
  for await (const verdict of verdicts) {
    if (good + bad === maxRows) throw bulkInputTooLarge(label, `${maxRows.toLocaleString('en')} rows`);
    if ('row' in verdict) {
      good++;
      continue;
    }
    bad++;
    const shared = machine ? [] : (verdict.shared ?? []);
    for (const problem of shared) {
      const group = groups.get(problem.key) ?? { problem, lines: [], count: 0 };
      groups.set(problem.key, group);
      if (group.lines.length < LINES_NAMED) group.lines.push(verdict.line);
      group.count++;
    }
    const own = verdict.problems.filter((p) => !shared.some((s) => s.one === p));
    if (own.length === 0) continue;
    if (shown++ < PROBLEMS_SHOWN) for (const p of own) report.add(verdict.line, p);
    else unshown++;
  }
  if (bad === 0) return good;
  report.more(unshown, 'lines with problems');
  for (const { problem, lines, count } of groups.values()) {
    if (count === 1) report.add(lines[0], problem.one);
    else {
      const named = linesNamed(lines, count);
      report.add(undefined, problem.many ? `${named} ${problem.many}` : `${named}: ${problem.one}`);
    }
  }
  const lines = counted(bad, `line of ${label} has`, `lines of ${label} have`);
  throw new UsageError(`${lines} problems; nothing was sent`, {
    code: 'invalid_file',
    hint: typeof hint === 'function' ? hint() : hint,
    details: report.details,
  });
}

/** How many of a shared problem's lines are named before the rest are counted. */
const LINES_NAMED = 3;

/** `lines 2, 3 and 4`, or `lines 2, 3, 4 … and 4,997 more`: the first of `count` lines. */
function linesNamed(first: number[], count: number): string {
  if (count <= first.length) return `lines ${first.slice(0, -1).join(', ')} and ${first.at(-1)}`;
  return `lines ${first.join(', ')} ${sym.ellipsis} and ${(count - first.length).toLocaleString('en')} more`;
}
