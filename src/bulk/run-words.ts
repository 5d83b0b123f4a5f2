// How a bulk run's end is said, the real run's and the dry run's alike: its counts, the rows named,
// how to run it again, and the error of a run whose items failed.
import type { Context } from '../context.js';
import { PartialFailureError, type SvcError } from '../errors.js';
import { counted, countedOf } from '../output/format.js';
import type { BulkSummary } from './summary.js';

export const n = (count: number) => count.toLocaleString('en');

export interface Words {
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
export function countsBeforeError(ctx: Context, text: string): void {
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
export function failedItems(
  summary: BulkSummary,
  message: string,
  options: { hint: string; dryRun?: boolean; made?: string | undefined },
): SvcError {
  // A failed row that says its change was made (item.ts failedButMade, the verb's
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
export function failed(count: number, total: number, verb: Words, rows: unknown[], what = 'failed'): string {
  return `${countedOf(count, total, 'item')} ${what}${named(count, verb, rows)}`;
}

/** `: line 4: user usr_x not found; and 2 more`, or nothing when no row is at hand. */
export function named(count: number, verb: Words, rows: unknown[]): string {
  const text = rows.map((row) => verb.describe(row as never)).join('; ');
  const more = count > rows.length ? `; and ${n(count - rows.length)} more` : '';
  return text ? `: ${text}${more}` : '';
}

/** `12 of 40`, or `12 items` when the total is not known (a stream). */
export function howFar(summary: BulkSummary, total: number | undefined): string {
  return total === undefined ? counted(summary.total, 'item') : `${n(summary.total)} of ${n(total)}`;
}

/**
 * How a run is taken up again. Its journal is its caller's (caller.ts: the profile, and the user a
 * login's token names or the API key), so the same command as another user is a run of its own,
 * not this one's resume, while a new login of the same user (after a credential stopped working)
 * resumes it: the words say who, not which secret (review17c C5). `purpose`: `to resume`, `to
 * settle them`, `after T to resume`.
 */
export function runAgain(purpose: string, journal: string, note = ''): string {
  return `run the same command again with the same profile, logged in as the same user or with the same API key, ${purpose} (journal ${journal}${note})`;
}

/**
 * How to settle the items whose outcome is unknown. An answer lost (none came, a 5xx): the same
 * command sends the same key and is answered from the platform's record. An answer the server
 * gave (2xx) that svc cannot read: the same command sends the same key and, from a server that
 * stores its answers, gets the same answer, so it settles nothing of those: they are checked on
 * the platform (review19 F2).
 */
export function settleUnknown(summary: BulkSummary, journal: string): string {
  const accepted = summary.acceptedUnread ?? 0;
  const lost = summary.unknown - accepted;
  if (accepted === 0) return runAgain('to settle them', journal);
  const check = `the server accepted ${n(accepted)} of them (HTTP 2xx) in an answer svc cannot read: check on the platform whether each was made; running the same command again sends the same idempotency key and may be answered the same`;
  return lost > 0
    ? `${runAgain(`to settle the ${n(lost)} whose answer was lost`, journal)}; ${check}`
    : `${check} (journal ${journal})`;
}

/** How `count` items of an unknown outcome end: "may have made it" of one, "them" of more. */
export const unknownWords = (count: number) =>
  `with an unknown outcome (the platform may have made ${count === 1 ? 'it' : 'them'}; no answer svc could believe said whether it did)`;

export const seconds = (ms: number) => Math.ceil(ms / 1000);
