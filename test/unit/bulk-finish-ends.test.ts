// Over 300 lines: one table per way a run's end is worded (halts, unread sources, unknown outcomes,
// closed outputs, dry runs, a second Ctrl-C), each with its exact message, hint and exit code.
/**
 * The ends of a bulk run (src/bulk/finish.ts) that its verb tests reach rarely or only in a
 * spawned process (session 22, from the file's mutation survivors): a rate limit that stops a run
 * or a dry run, a journal that could not be written, a source that could not be read further,
 * the outcomes svc cannot know and how each is settled, a closed or failed stdout, and what a
 * second Ctrl-C says. Exact text throughout: these words are what an unattended run leaves behind.
 */
import { describe, expect, it } from 'vitest';
import { abandonedRun } from '../../src/bulk/finish.js';
import { JournalWriteError } from '../../src/bulk/journal-disk.js';
import { AuthError, ClosedPipeError, exitCodeFor, STDOUT_FAILED_HINT, SvcError } from '../../src/errors.js';
import { ApiError, ConnectionError, OutcomeUnknownError } from '../../src/http/errors.js';
import { dry, end, finish, summary, VERB } from '../helpers/bulk-end.js';

const AGAIN =
  'run the same command again with the same profile, logged in as the same user or with the same API key,';
const RESUME = `${AGAIN} to resume (journal /state/j.ndjson)`;
const NDJSON = '; --ndjson prints one result per item';
const UNKNOWN =
  'with an unknown outcome (the platform may have made them; no answer svc could believe said whether it did)';
const UNTIL = Date.UTC(2026, 10, 26, 5, 0, 0);

/** A 429 asking for a longer wait (90.001 s) than svc makes by itself (59.5 s): both rounded up. */
function rateLimited(): ApiError {
  const error = new ApiError({ status: 429, code: 'rate_limited', message: 'slow down' });
  error.waitBeyondCap = { askedMs: 90_001, capMs: 59_500, until: UNTIL };
  return error;
}

const rows = (...lines: number[]) => lines.map((line) => ({ line, why: `why ${line}` }));

describe('finishRun: a halt', () => {
  it('a rate limit longer than svc waits: exit 7, rate_limited, the waits rounded up, when to resume', () => {
    const halted = rateLimited();
    const { run, removed } = end({
      total: 9,
      summary: summary({ total: 5, ok: 4, failed: 1, unsettled: 1, stopped: true, halted }),
    });
    expect(finish(run, VERB, { code: true })).toEqual({
      stderr: '4 granted, 1 failed, 4 not started (2.3 s)\n',
      error: {
        message:
          'stopped after 5 of 9: the platform rate-limits this run and asks for a wait of 91 s, longer than svc waits by itself (60 s); the rows not started were not sent',
        hint: `${AGAIN} after 2026-11-26T05:00:00Z to resume (journal /state/j.ndjson)`,
        exit: 7,
        code: 'rate_limited',
      },
    });
    expect(removed).toEqual([]);
  });

  // review24e L3: "the items not started were not sent" was said when none was left, and
  // "every later item needs the same" of a plan whose steps need other permissions.
  it('insufficient_role at the last item: exit 4, no word of items not started', () => {
    const halted = new ApiError({ status: 403, code: 'insufficient_role', message: 'lacks role.assign' });
    const { run } = end({
      total: 3,
      summary: summary({ total: 3, ok: 2, failed: 1, stopped: true, halted }),
    });
    expect(finish(run, VERB, { code: true }).error).toMatchObject({
      message:
        "stopped after 3 of 3: the platform refused an item because the caller's roles do not allow it now (lacks role.assign)",
      exit: 4,
      code: 'insufficient_role',
    });
  });

  it('insufficient_role with items left: those needing the same permission, not every later one', () => {
    const halted = new ApiError({ status: 403, code: 'insufficient_role', message: 'lacks role.assign' });
    const { run } = end({
      total: 5,
      summary: summary({ total: 3, ok: 2, failed: 1, stopped: true, halted }),
    });
    expect(finish(run, VERB, { code: true }).error).toMatchObject({
      message:
        "stopped after 3 of 5: the platform refused an item because the caller's roles do not allow it now (lacks role.assign); an item that needs the same permission would be refused alike, so the items not started were not sent",
      exit: 4,
    });
  });

  it("the verb's own reason: its error as it is (its words, hint and exit code)", () => {
    const halted = new SvcError('usage', 'the queue changed under the run', {
      code: 'queue_changed',
      hint: 'list it again',
    });
    const { run } = end({ summary: summary({ total: 2, ok: 2, stopped: true, halted }), total: 5 });
    expect(finish(run, VERB, { code: true }).error).toEqual({
      message: 'the queue changed under the run',
      hint: 'list it again',
      exit: 2,
      code: 'queue_changed',
    });
  });

  it('a credential error without a hint of its own: exit 3, its code kept, how to resume', () => {
    const halted = new AuthError('the API key was revoked', { code: 'key_revoked' });
    const { run } = end({ summary: summary({ total: 2, ok: 2, stopped: true, halted }) });
    expect(finish(run, VERB, { code: true }).error).toEqual({
      message: 'the API key was revoked',
      hint: RESUME,
      exit: 3,
      code: 'key_revoked',
    });
    // A 401 whose body names no code: unauthenticated.
    const bare = new ApiError({ status: 401, message: 'token expired' });
    const noCode = end({ summary: summary({ total: 2, ok: 2, stopped: true, halted: bare }) });
    expect(finish(noCode.run, VERB, { code: true }).error).toEqual({
      message: 'token expired',
      hint: RESUME,
      exit: 3,
      code: 'unauthenticated',
    });
  });

  it('a journal that could not be written: exit 1, the changes it lacks counted, how to go on', () => {
    const full = JournalWriteError.of(
      'the journal /state/j.ndjson',
      Object.assign(new Error('x'), { code: 'ENOSPC' }),
    );
    const lacking = end({
      total: 9,
      summary: summary({ total: 5, ok: 5, unjournaled: 2, stopped: true, halted: full }),
    });
    expect(finish(lacking.run)).toEqual({
      stderr: '5 granted, 4 not started (2.3 s)\n',
      error: {
        message: `${full.message}; stopped after 5 of 9, 2 of them granted but not journaled`,
        hint: `make room on its disk, then ${RESUME}; it finds what was not journaled done`,
        exit: 1,
      },
    });
    expect(lacking.removed).toEqual([]);
    const none = end({ total: 9, summary: summary({ total: 5, ok: 5, stopped: true, halted: full }) });
    expect(finish(none.run).error).toEqual({
      message: `${full.message}; stopped after 5 of 9`,
      hint: `make room on its disk, then ${RESUME}`,
      exit: 1,
    });
  });
});

describe('finishRun: a source that could not be read further', () => {
  it('its error, saying how far the run got; its hint, then how to resume', () => {
    const unread = new SvcError('failure', 'could not read page 3', {
      code: 'page_failed',
      hint: 'check the network',
    });
    const { run, removed } = end({ summary: summary({ total: 5, ok: 5, unread }) });
    expect(finish(run, VERB, { code: true })).toEqual({
      stderr: '5 granted (2.3 s)\n',
      error: {
        message: 'stopped after 5 items: could not read page 3',
        hint: `check the network; then ${RESUME}`,
        exit: 1,
        code: 'page_failed',
      },
    });
    expect(removed).toEqual([]);
  });

  it("an error that is not svc's own (a raw read error): thrown as it is", () => {
    const unread = new Error('EIO: i/o error, read');
    const { run } = end({ summary: summary({ total: 5, ok: 5, unread }) });
    expect(finish(run)).toEqual({
      stderr: '5 granted (2.3 s)\n',
      error: { message: 'EIO: i/o error, read', hint: undefined, exit: 1 },
    });
  });

  it('without a hint: how to resume; a total known: the items not started counted', () => {
    const unread = new SvcError('not_found', 'the queue is gone');
    const { run } = end({ total: 8, summary: summary({ total: 5, ok: 5, unread }) });
    expect(finish(run)).toEqual({
      stderr: '5 granted, 3 not started (2.3 s)\n',
      error: { message: 'stopped after 5 of 8: the queue is gone', hint: RESUME, exit: 5 },
    });
  });
});

describe('finishRun: outcomes svc cannot know', () => {
  it('a one-item run whose answer was lost: its error, how to settle it, the journal kept', () => {
    const single = new OutcomeUnknownError(new ConnectionError('socket hang up'));
    const { run, removed } = end({ single, summary: summary({ total: 1, ok: 0, unknown: 1 }) });
    expect(finish(run)).toEqual({
      stderr: '',
      error: {
        message: 'socket hang up, so the outcome is unknown: the platform may have made this change',
        hint: `${AGAIN} to settle it (journal /state/j.ndjson): it sends the same idempotency key`,
        exit: 1,
      },
    });
    expect(removed).toEqual([]);
  });

  it('a one-item run refused for good, its journal not removable: a warning, then its error', () => {
    const single = new SvcError('not_found', 'no such user');
    const { run } = end({ single, summary: summary({ total: 1, ok: 0, failed: 1, refused: 1 }) });
    (run.journal as unknown as { remove: () => string }).remove = () => 'read-only file system';
    expect(finish(run)).toEqual({
      stderr:
        "warning: the run's result stands, but its journal /state/j.ndjson could not be removed (read-only file system): the same command would resume this run (its item tried again); remove it (`rm /state/j.ndjson`) before you run it again\n",
      error: { message: 'no such user', hint: undefined, exit: 5 },
    });
  });

  const CHECK = (count: number) =>
    `the server accepted ${count} of them (HTTP 2xx) in an answer svc cannot read: check on the platform whether each was made; running the same command again sends the same idempotency key and may be answered the same`;

  it('every unknown one accepted in an answer svc cannot read: check on the platform (a verb hint is not for them)', () => {
    const { run, removed } = end({
      unknowns: rows(4, 9),
      summary: summary({ ok: 1498, unknown: 2, acceptedUnread: 2 }),
    });
    expect(finish(run, { ...VERB, retryHint: 'replay them later' })).toEqual({
      stderr: '1,498 granted, 2 with an unknown outcome (2.3 s)\n',
      error: {
        message: `2 of 1,500 items ended ${UNKNOWN}: line 4: why 4; line 9: why 9`,
        hint: `${CHECK(2)} (journal /state/j.ndjson)${NDJSON}`,
        exit: 7,
      },
    });
    expect(removed).toEqual([]);
  });

  it('some accepted, some answers lost: those settled by the same command, the others checked', () => {
    const { run } = end({ unknowns: rows(4), summary: summary({ ok: 1497, unknown: 3, acceptedUnread: 1 }) });
    expect(finish(run).error?.hint).toBe(
      `${AGAIN} to settle the 2 whose answer was lost (journal /state/j.ndjson); ${CHECK(1)}${NDJSON}`,
    );
  });

  it("failed and unknown with the verb's hint: its hint for the failed, then how to settle the others", () => {
    const { run } = end({
      failures: rows(4),
      unknowns: rows(9, 10, 11, 12),
      summary: summary({ ok: 1490, failed: 1, refused: 1, unknown: 9 }),
    });
    expect(finish(run, { ...VERB, retryHint: () => 'replay them later' }).error).toEqual({
      message: `1 of 1,500 items failed: line 4: why 4; 9 ended ${UNKNOWN}: line 9: why 9; line 10: why 10; line 11: why 11; line 12: why 12; and 5 more`,
      hint: `replay them later; for the unknown ones, ${AGAIN} to settle them (journal /state/j.ndjson)${NDJSON}`,
      exit: 7,
    });
  });

  it('every failed row changed since (changed_since): made anew, on condition; the unknown ones settled', () => {
    const since = end({
      summary: summary({ ok: 1498, failed: 2, refused: 2, unsettled: 2, undoneSince: 2 }),
    });
    expect(finish(since.run).error?.hint).toBe(
      `if the 2 changed since should still be as asked (another admin may have changed them on purpose), ${AGAIN} to make them anew (a new request each) (journal /state/j.ndjson)${NDJSON}`,
    );
    expect(since.removed).toEqual([]);
    const withUnknown = end({
      summary: summary({ ok: 1497, failed: 2, refused: 2, unsettled: 2, undoneSince: 2, unknown: 1 }),
    });
    expect(finish(withUnknown.run).error?.hint).toBe(
      `if the 2 changed since should still be as asked (another admin may have changed them on purpose), ${AGAIN} to make them anew (a new request each) (journal /state/j.ndjson); for the unknown ones, ${AGAIN} to settle them (journal /state/j.ndjson)${NDJSON}`,
    );
    // Not all of them changed since: the rows are to be fixed.
    const some = end({ summary: summary({ ok: 1498, failed: 2, refused: 2, unsettled: 2, undoneSince: 1 }) });
    expect(finish(some.run).error?.hint).toBe(`fix them and ${RESUME}${NDJSON}`);
  });

  it("rows of a file still owed: the verb's fix, or the same command to retry them", () => {
    const { run, removed } = end({ summary: summary({ ok: 1499, failed: 1, unsettled: 1 }) });
    const fixHint = 'fix the file and run it again: a new run, rows already granted are skipped';
    expect(finish(run, { ...VERB, fixHint }).error?.hint).toBe(
      `${fixHint}; or ${AGAIN} to retry the failed rows (journal /state/j.ndjson; delete it once the fixed file has run)${NDJSON}`,
    );
    expect(removed).toEqual([]);
  });

  it('with --ndjson: the counts on stderr, and no word of --ndjson in the hint', () => {
    const { run } = end({ failures: rows(4), summary: summary({ ok: 1499, failed: 1, refused: 1 }) });
    expect(finish(run, VERB, { ndjson: true })).toEqual({
      stderr: '1,499 granted, 1 failed (2.3 s)\n',
      error: {
        message: '1 of 1,500 items failed: line 4: why 4',
        hint: 'nothing is left to resume',
        exit: 7,
      },
    });
  });

  it('a verb that keeps its journal: failures refused for good keep it too', () => {
    const { run, removed } = end({ summary: summary({ ok: 1499, failed: 1, refused: 1 }) });
    finish(run, { ...VERB, keepJournal: () => true });
    expect(removed).toEqual([]);
  });
});

describe("finishRun: the summary line's words", () => {
  it('found done after a lost answer, skipped, blocked, unknown, and made though failed', () => {
    const { run } = end({
      summary: summary({ ok: 1484, gone: 2, skipped: 6, failed: 6, blocked: 3, unknown: 4, unsettled: 6 }),
    });
    const made = () => '2 of them created, their secret not saved';
    expect(finish(run, { ...VERB, madeThoughFailed: made }).stderr).toBe(
      '1,484 granted (2 found done by a retry after the answer to the first attempt was lost), 6 skipped, 6 failed (3 not attempted: what they need failed; 2 of them created, their secret not saved), 4 with an unknown outcome (2.3 s)\n',
    );
  });

  it('every item done but one still owed its end (keepJournal): the counts, no ✓, the journal kept', () => {
    const { run, removed } = end();
    expect(finish(run, { ...VERB, keepJournal: () => true })).toEqual({
      stderr: '1,500 granted (2.3 s)\n',
      error: undefined,
    });
    expect(removed).toEqual([]);
  });

  it('done, the journal not removable: the ✓, then where it is and what the same command would do', () => {
    const { run } = end();
    (run.journal as unknown as { remove: () => string }).remove = () => 'read-only file system';
    expect(finish(run).stderr).toBe(
      '✓ 1,500 granted (2.3 s)\n' +
        "warning: the run's result stands, but its journal /state/j.ndjson could not be removed (read-only file system): the same command would print these results again and do nothing; remove it (`rm /state/j.ndjson`) before you run it again\n",
    );
  });
});

describe('finishRun: a closed or failed stdout', () => {
  it('a failed write (a full disk): exit 1 naming it, how to resume', () => {
    const { run, removed } = end({ closed: true, total: 2000 });
    expect(finish(run, VERB, { stdoutFailure: 'ENOSPC' })).toEqual({
      stderr: '1,500 granted, 500 not started (2.3 s)\n',
      error: { message: 'cannot write to stdout (ENOSPC) after 1,500 of 2,000', hint: RESUME, exit: 1 },
    });
    expect(removed).toEqual([]);
  });

  it('a failed write after every item was done: still the failed write, not "only the output was cut"', () => {
    const { run } = end({ closed: true, total: 1500 });
    expect(finish(run, VERB, { stdoutFailure: 'EIO' }).error?.message).toBe(
      'cannot write to stdout (EIO) after 1,500 of 1,500',
    );
    const failedToo = end({
      closed: true,
      total: 1500,
      summary: summary({ ok: 1499, failed: 1, refused: 1 }),
    });
    expect(finish(failedToo.run, VERB, { stdoutFailure: 'EIO' }).error?.exit).toBe(1);
  });

  it('closed after every item was done, some failed: the failures are the outcome (exit 7), not 141', () => {
    const { run, removed } = end({
      closed: true,
      total: 1500,
      failures: rows(4),
      summary: summary({ ok: 1499, failed: 1, refused: 1 }),
    });
    expect(finish(run)).toEqual({
      stderr: '1,499 granted, 1 failed (2.3 s)\n',
      error: {
        message: '1 of 1,500 items failed: line 4: why 4',
        hint: `nothing is left to resume${NDJSON}`,
        exit: 7,
      },
    });
    expect(removed).toEqual(['removed']);
  });

  it('closed after every item was done, some with an unknown outcome: that outcome (exit 7), not 141', () => {
    const { run, removed } = end({
      closed: true,
      total: 1500,
      unknowns: rows(9),
      summary: summary({ ok: 1499, unknown: 1 }),
    });
    expect(finish(run)).toEqual({
      stderr: '1,499 granted, 1 with an unknown outcome (2.3 s)\n',
      error: {
        message: `1 of 1,500 items ended ${UNKNOWN.replace('made them', 'made it')}: line 9: why 9`,
        hint: `${AGAIN} to settle them (journal /state/j.ndjson)${NDJSON}`,
        exit: 7,
      },
    });
    expect(removed).toEqual([]);
  });

  it.each<[string, Parameters<typeof end>[0]]>([
    ['no total known (a stream)', { closed: true, summary: summary() }],
    ['the items counted short of the total', { closed: true, total: 1501, summary: summary() }],
    ['a halt among them', { closed: true, total: 1500, summary: summary({ halted: new AuthError('gone') }) }],
    [
      'the source not read to its end',
      { closed: true, total: 1500, summary: summary({ unread: new SvcError('failure', 'page 3') }) },
    ],
  ])('closed, %s: stdout closed, how to resume (not "every item was done")', (_what, extra) => {
    const { run } = end(extra);
    const error = finish(run).error;
    expect(error?.exit).toBe(141);
    expect(error?.message).toMatch(/^stdout closed after 1,500( of 1,50[01]| items)$/);
    expect(error?.hint).toBe(RESUME);
  });

  it('closed, failures after some items never started: 141, the failures not the outcome', () => {
    const { run } = end({ closed: true, total: 1600, summary: summary({ ok: 1499, failed: 1, refused: 1 }) });
    expect(finish(run).error).toEqual({
      message: 'stdout closed after 1,500 of 1,600',
      hint: RESUME,
      exit: 141,
    });
  });
});

describe('abandonedRun (a second Ctrl-C)', () => {
  it.each<
    [
      string,
      { done: number; inFlight: number; total: number | undefined },
      boolean,
      string,
      string | undefined,
    ]
  >([
    [
      'a dry run',
      { done: 3, inFlight: 2, total: 10 },
      false,
      'interrupted again, so svc stopped at once after 3 of 10; nothing was changed',
      undefined,
    ],
    [
      'nothing in flight',
      { done: 3, inFlight: 0, total: undefined },
      true,
      'interrupted again, so svc stopped at once after 3 items',
      RESUME,
    ],
    [
      'one in flight',
      { done: 1234, inFlight: 1, total: 5000 },
      true,
      'interrupted again, so svc stopped at once after 1,234 of 5,000; 1 more was in flight: the platform may have made it',
      `${RESUME}: it sends that one again with the same idempotency keys`,
    ],
    [
      'several in flight',
      { done: 3, inFlight: 2, total: 10 },
      true,
      'interrupted again, so svc stopped at once after 3 of 10; 2 more were in flight: the platform may have made them',
      `${RESUME}: it sends those again with the same idempotency keys`,
    ],
  ])('%s', (_what, progress, journaled, message, hint) => {
    const error = abandonedRun(progress, journaled ? { path: '/state/j.ndjson' } : undefined);
    expect({ message: error.message, hint: error.hint, exit: exitCodeFor(error) }).toEqual({
      message,
      hint,
      exit: 130,
    });
  });
});

describe('finishDryRun: a closed or failed stdout', () => {
  it('a failed write: exit 1, nothing was changed', () => {
    expect(
      dry(summary({ total: 3, ok: 3 }), [], { end: { total: 10, closed: true }, stdoutFailure: 'ENOSPC' })
        .error,
    ).toEqual({
      message: 'cannot write to stdout (ENOSPC) after 3 of 10; nothing was changed',
      hint: STDOUT_FAILED_HINT,
      exit: 1,
    });
  });

  it('every row checked, none would fail: ends quietly, as a listing (exit 0)', () => {
    const { stderr, thrown } = dry(summary(), [], { end: { total: 1500, closed: true } });
    expect(stderr).toBe('');
    expect(thrown).toBeInstanceOf(ClosedPipeError);
    expect(exitCodeFor(thrown)).toBe(0);
  });

  it.each<[string, number | undefined, string]>([
    ['rows left unchecked', 10, '3 of 10'],
    ['no total known (a stream)', undefined, '3 items'],
  ])('%s: no verdict, exit 141, how to check every row', (_what, total, of) => {
    expect(dry(summary({ total: 3, ok: 3 }), [], { end: { total, closed: true } })).toEqual({
      stderr: '',
      thrown: expect.anything(),
      error: {
        message: `stdout closed after ${of}: the rest was not checked; nothing was changed`,
        hint: 'run the dry run again with its output in a file (or --json) to check every row',
        exit: 141,
      },
    });
  });

  it('rows that would fail found before it closed: that outcome stands, the rest counted not started', () => {
    // Stopped by the closed stdout (not Ctrl-C): the rows checked say the outcome.
    const s = summary({ total: 3, ok: 2, failed: 1, stopped: true });
    expect(dry(s, rows(4), { end: { total: 10, closed: true } })).toEqual({
      stderr: 'dry run: 2 would be granted, 0 would be skipped, 1 would fail, 7 not started\n',
      thrown: expect.anything(),
      error: {
        message:
          '1 of 3 items would fail: line 4: why 4; stdout closed after 3 of 10: the rest was not checked',
        hint: 'nothing was changed; fix them before running without --dry-run',
        exit: 7,
      },
    });
  });

  it("a one-item dry run's error found before it closed: that error", () => {
    const single = new SvcError('not_found', 'no such user');
    const { stderr, error } = dry(summary({ total: 1, ok: 0, failed: 1 }), [], {
      single,
      end: { total: 1, closed: true },
    });
    expect(stderr).toBe(
      'dry run: 0 would be granted, 0 would be skipped, 1 would fail; nothing was changed\n',
    );
    expect(error).toEqual({ message: 'no such user', hint: undefined, exit: 5 });
  });
});

describe('finishDryRun: checks the server did not answer', () => {
  const NOT_CHECKED = (why: string) => `nothing was changed; the rows may be fine: ${why}`;

  it('none answered: exit 1, not_checked, run the dry run again', () => {
    const { stderr, error } = dry(summary({ ok: 1498, unknown: 2 }), [], {
      end: { unknowns: rows(4, 9) },
      code: true,
    });
    expect({ stderr, error }).toEqual({
      stderr: 'dry run: 1,498 would be granted, 0 would be skipped, 0 would fail, 2 could not be checked\n',
      error: {
        message: '2 of 1,500 items could not be checked: line 4: why 4; line 9: why 9',
        hint: NOT_CHECKED('the server did not answer their checks; run the dry run again'),
        exit: 1,
        code: 'not_checked',
      },
    });
  });

  it('all answered in words svc does not know: a dry run again is answered the same', () => {
    // No rows at hand (none given): the count alone.
    expect(dry(summary({ ok: 1498, unknown: 2, unknownWords: 2 })).error).toEqual({
      message: '2 of 1,500 items could not be checked',
      hint: NOT_CHECKED(
        'the server answered their checks in words svc does not know (each row says which); a dry run again is answered the same',
      ),
      exit: 1,
    });
  });

  it('some unanswered, some in unknown words, some rows would fail: each said', () => {
    const { error } = dry(summary({ ok: 1496, unknown: 3, unknownWords: 1, failed: 1 }), rows(5), {
      end: { unknowns: rows(4) },
    });
    expect(error).toEqual({
      message:
        '3 of 1,500 items could not be checked: line 4: why 4; and 2 more; 1 of 1,500 items would fail: line 5: why 5',
      hint: NOT_CHECKED(
        'the server did not answer some of their checks, and answered 1 in words svc does not know (each row says which); run the dry run again for the others (and fix the rows that would fail)',
      ),
      exit: 1,
    });
  });

  it('with --json: the counts line before the JSON error, as without it (attack26a F11)', () => {
    for (const counts of [summary({ ok: 1498, unknown: 2 }), summary({ ok: 1499, failed: 1 })]) {
      const json = dry(counts, [], { json: true });
      expect(json.stderr).toBe(dry(counts, []).stderr);
      expect(json.stderr).toMatch(/^dry run: 1,49[89] would be granted, .*\n$/);
    }
  });
});

describe('finishDryRun: counts, halts and unread sources', () => {
  it("what no row was checked against (the verb's caveat) follows the counts", () => {
    expect(
      dry(summary(), [], { verb: { ...VERB, unchecked: () => 'not checked against what you hold' } }).stderr,
    ).toBe(
      'dry run: 1,500 would be granted, 0 would be skipped, 0 would fail; not checked against what you hold; nothing was changed\n',
    );
    expect(dry(summary(), [], { verb: { ...VERB, unchecked: () => undefined } }).stderr).toBe(
      'dry run: 1,500 would be granted, 0 would be skipped, 0 would fail; nothing was changed\n',
    );
  });

  it('a rate limit longer than svc waits: exit 1, rate_limited, the counts, when to run it again', () => {
    const { stderr, error } = dry(summary({ total: 3, ok: 3, stopped: true, halted: rateLimited() }), [], {
      end: { total: 10 },
      code: true,
    });
    expect({ stderr, error }).toEqual({
      stderr: 'dry run: 3 would be granted, 0 would be skipped, 0 would fail, 7 not started\n',
      error: {
        message:
          'stopped after 3 of 10: the platform rate-limits this dry run and asks for a wait of 91 s, longer than svc waits by itself (60 s); the rows not started were not checked',
        hint: 'nothing was changed; run the dry run again after 2026-11-26T05:00:00Z',
        exit: 1,
        code: 'rate_limited',
      },
    });
    expect(dry(summary({ total: 3, ok: 3, halted: rateLimited() })).error?.message).toMatch(
      /^stopped after 3 items: /,
    );
  });

  it("a rate limit stopping a one-item dry run, or a credential's halt: that error as it is", () => {
    const limit = rateLimited();
    const one = dry(summary({ total: 1, ok: 0, unknown: 1, halted: limit }), [], { single: limit });
    expect(one.thrown).toBe(limit);
    expect(one.stderr).toBe('');
    const gone = new AuthError('not logged in');
    const auth = dry(summary({ total: 2, ok: 2, halted: gone }));
    expect(auth.thrown).toBe(gone);
    expect(auth.stderr).toBe('');
  });

  it('items that could not be read: that error as it is, no counts', () => {
    const unread = new SvcError('failure', 'could not read page 3');
    const { thrown, stderr } = dry(summary({ total: 2, ok: 2, unread }));
    expect(thrown).toBe(unread);
    expect(unread.message).toBe('could not read page 3');
    expect(stderr).toBe('');
  });
});
