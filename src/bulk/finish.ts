import type { Context } from '../context.js';
import { InterruptedError, PartialFailureError } from '../errors.js';
import type { Journal } from './journal.js';
import type { BulkSummary } from './runner.js';

const n = (count: number) => count.toLocaleString('en');

/**
 * Ends a bulk run the same way for every command: a summary on stderr, the journal kept while
 * anything is left to resume (removed otherwise), exit 130 after Ctrl-C, exit 7 when some items
 * failed.
 */
export function finishBulk(
  ctx: Context,
  summary: BulkSummary,
  journal: Journal | undefined,
  done: string,
): void {
  const seconds = (summary.elapsedMs / 1000).toFixed(1);
  const parts = [`${n(summary.ok)} ${done}`];
  if (summary.skipped) parts.push(`${n(summary.skipped)} skipped`);
  if (summary.failed) parts.push(`${n(summary.failed)} failed`);
  const line = `${parts.join(', ')} in ${seconds} s`;
  const resume = journal
    ? `run the same command again to resume (journal ${journal.path})`
    : 'run it again to resume';
  if (summary.interrupted) {
    ctx.out.info(line);
    throw new InterruptedError(`interrupted after ${n(summary.total)} item(s)`, { hint: resume });
  }
  if (summary.failed) {
    ctx.out.info(line);
    throw new PartialFailureError(`${n(summary.failed)} of ${n(summary.total)} item(s) failed`, {
      hint: `${journal ? 'fix them and ' : ''}${resume}; --ndjson prints one result per item`,
    });
  }
  journal?.remove();
  ctx.out.success(line);
}
