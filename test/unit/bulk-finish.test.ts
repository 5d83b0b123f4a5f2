// Over 300 lines: tables of exact summaries, errors and output bytes, one block per way a run ends.
// How every bulk run ends (src/bulk/finish.ts) and how its results are streamed
// (src/bulk/results.ts): the summary line, the error and its exit code, whether the journal is
// kept, and the bytes of each output mode. Exact text throughout.
import { describe, expect, it } from 'vitest';
import type { RunEnd } from '../../src/bulk/finish.js';
import { resultStream } from '../../src/bulk/results.js';
import { AuthError, SvcError } from '../../src/errors.js';
import type { Column } from '../../src/output/output.js';
import { dry as dryRun, end, finish, summary, VERB } from '../helpers/bulk-end.js';
import { testContext } from '../helpers/context.js';

describe('finishRun', () => {
  // stderr is for people in every mode (attack26a F11): with --json the counts still come first,
  // and the JSON error is the last line.
  it.each<[string, Partial<RunEnd>, string]>([
    [
      'failures',
      { failures: [{ line: 4, why: 'no' }], summary: summary({ ok: 1, failed: 1, refused: 1 }) },
      '1 granted, 1 failed (2.3 s)\n',
    ],
    ['a closed stdout', { closed: true }, '1,500 granted (2.3 s)\n'],
    ['Ctrl-C', { summary: summary({ stopped: true }) }, '1,500 granted (2.3 s)\n'],
  ])('with --json, %s: the counts line before the JSON error', (_what, extra, counts) => {
    const { run } = end(extra);
    const { stderr, error } = finish(run, VERB, true);
    expect(stderr).toBe(counts);
    expect(error).toBeDefined();
  });

  it('all done: a success line, the journal removed', () => {
    const { run, removed } = end();
    expect(finish(run)).toEqual({ stderr: '✓ 1,500 granted (2.3 s)\n', error: undefined });
    expect(removed).toEqual(['removed']);
  });

  it('a closed stdout: exit 141 naming how far it got, the journal kept', () => {
    const { run, removed } = end({ closed: true, total: 2000, summary: summary({ skipped: 2, failed: 1 }) });
    expect(finish(run)).toEqual({
      stderr: '1,500 granted, 2 skipped, 1 failed, 500 not started (2.3 s)\n',
      error: {
        message: 'stdout closed after 1,500 of 2,000',
        hint: 'run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal /state/j.ndjson)',
        exit: 141,
      },
    });
    expect(removed).toEqual([]);
  });

  // A reader gone after the last item was done (`| head -1` of a small run): nothing is left to
  // do, and the words say what the same command does (prints the results, does nothing again);
  // 141 stays the contract's code for a closed stdout, and its journal stays (review17c C3).
  it('a closed stdout after every item was done, none failed: 141, only the output cut, the journal kept', () => {
    const { run, removed } = end({ closed: true, total: 1500, summary: summary({ ok: 1498, skipped: 2 }) });
    expect(finish(run)).toEqual({
      stderr: '1,498 granted, 2 skipped (2.3 s)\n',
      error: {
        message: 'stdout closed, but every item was done (1,500 of 1,500): only the output was cut',
        hint: 'run the same command again with the same profile, logged in as the same user or with the same API key, to print the results from its journal; nothing is done again (journal /state/j.ndjson)',
        exit: 141,
      },
    });
    expect(removed).toEqual([]);
  });

  it('a closed stdout after every item was done, one still owed its end (keepJournal): how to resume', () => {
    const { run, removed } = end({ closed: true, total: 1500 });
    expect(finish(run, { ...VERB, keepJournal: () => true } as never).error).toEqual({
      message: 'stdout closed after 1,500 of 1,500',
      hint: 'run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal /state/j.ndjson)',
      exit: 141,
    });
    expect(removed).toEqual([]);
  });

  it('failed and unknown rows: both counted and named, exit 7, the journal kept', () => {
    const { run, removed } = end({
      failures: [{ line: 4, why: 'no such user' }],
      unknowns: [{ line: 9, why: 'other side closed' }],
      summary: summary({ total: 1500, ok: 1498, failed: 1, unknown: 1, unsettled: 1, refused: 1 }),
    });
    expect(finish(run)).toEqual({
      stderr: '1,498 granted, 1 failed, 1 with an unknown outcome (2.3 s)\n',
      error: {
        message:
          '1 of 1,500 items failed: line 4: no such user; 1 ended with an unknown outcome (the platform may have made it; no answer svc could believe said whether it did): line 9: other side closed',
        hint: 'fix them and run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal /state/j.ndjson); --ndjson prints one result per item',
        exit: 7,
      },
    });
    expect(removed).toEqual([]);
  });

  it('a halt (the credential gone): exit 3, its hint, then how to resume; the journal kept', () => {
    const halted = new AuthError('not logged in: profile "oa" has no credential any more', {
      hint: 'run `svc -p oa login` again',
    });
    const { run, removed } = end({ summary: summary({ ok: 5, total: 6, failed: 1, stopped: true, halted }) });
    expect(finish(run)).toEqual({
      stderr: '5 granted, 1 failed (2.3 s)\n',
      error: {
        message: 'not logged in: profile "oa" has no credential any more',
        hint: 'run `svc -p oa login` again, then run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal /state/j.ndjson)',
        exit: 3,
      },
    });
    expect(removed).toEqual([]);
  });

  it('Ctrl-C: exit 130, the journal kept', () => {
    const { run, removed } = end({ summary: summary({ stopped: true, total: 12, ok: 12 }) });
    expect(finish(run)).toEqual({
      stderr: '12 granted (2.3 s)\n',
      error: {
        message: 'interrupted after 12 items',
        hint: 'run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal /state/j.ndjson)',
        exit: 130,
      },
    });
    expect(removed).toEqual([]);
  });

  it('failures all refused for good: exit 7, the first few named, the journal removed', () => {
    const failures = [
      { line: 4, why: 'user usr_x not found' },
      { line: 9, why: 'role r not found' },
    ];
    const { run, removed } = end({ failures, summary: summary({ ok: 1495, failed: 5, refused: 5 }) });
    expect(finish(run)).toEqual({
      stderr: '1,495 granted, 5 failed (2.3 s)\n',
      error: {
        message:
          '5 of 1,500 items failed: line 4: user usr_x not found; line 9: role r not found; and 3 more',
        hint: 'nothing is left to resume; --ndjson prints one result per item',
        exit: 7,
      },
    });
    expect(removed).toEqual(['removed']);
    const own = end({ failures, summary: summary({ failed: 2, refused: 2 }) });
    expect(finish(own.run, { ...VERB, retryHint: 'fix the file and run it again' }).error?.hint).toBe(
      'fix the file and run it again; --ndjson prints one result per item',
    );
  });

  // fix-files18 #3: a journal that cannot be removed stays, said in one warning before the error.
  it('failures all refused for good, the journal not removable: a warning says where it is and what the same command does', () => {
    const { run } = end({ summary: summary({ ok: 1495, failed: 5, refused: 5 }) });
    (run.journal as unknown as { remove: () => string }).remove = () => 'read-only file system';
    expect(finish(run).stderr).toBe(
      '1,495 granted, 5 failed (2.3 s)\n' +
        "warning: the run's result stands, but its journal /state/j.ndjson could not be removed (read-only file system): " +
        'the same command would resume this run (the rows done said done, the failed ones tried again); remove it (`rm /state/j.ndjson`) before you run it again\n',
    );
  });

  it('failures that may still be owed: the journal kept and the resume named', () => {
    const { run, removed } = end({ summary: summary({ failed: 1, unsettled: 1 }) });
    expect(finish(run).error).toEqual({
      message: '1 of 1,500 items failed',
      hint: 'fix them and run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal /state/j.ndjson); --ndjson prints one result per item',
      exit: 7,
    });
    expect(removed).toEqual([]);
  });

  it('a one-item run: its own error, the journal removed only when the server refused it', () => {
    const refused = new SvcError('not_found', 'no such user');
    const a = end({ single: refused, summary: summary({ total: 1, ok: 0, failed: 1, refused: 1 }) });
    expect(finish(a.run)).toEqual({
      stderr: '',
      error: { message: 'no such user', hint: undefined, exit: 5 },
    });
    expect(a.removed).toEqual(['removed']);
    const unknown = end({ single: refused, summary: summary({ total: 1, ok: 0, failed: 1, refused: 0 }) });
    finish(unknown.run);
    expect(unknown.removed).toEqual([]);
  });
});

describe('finishDryRun', () => {
  const dry = (s: Parameters<typeof dryRun>[0], failures: unknown[] = []) => {
    const { stderr, error } = dryRun(s, failures);
    return { stderr, error };
  };

  it('counts what would happen and changes nothing', () => {
    expect(dry(summary({ ok: 1498, skipped: 2 }))).toEqual({
      stderr: 'dry run: 1,498 would be granted, 2 would be skipped, 0 would fail; nothing was changed\n',
      error: undefined,
    });
  });

  it('exit 7 when some would fail, naming them', () => {
    expect(dry(summary({ ok: 1499, failed: 1 }), [{ line: 3, why: 'bad' }])).toEqual({
      stderr: 'dry run: 1,499 would be granted, 0 would be skipped, 1 would fail\n',
      error: {
        message: '1 of 1,500 items would fail: line 3: bad',
        hint: 'nothing was changed; fix them before running without --dry-run',
        exit: 7,
      },
    });
  });

  it('exit 130 when interrupted', () => {
    expect(dry(summary({ stopped: true, total: 40, failed: 1 })).error).toEqual({
      message: 'interrupted after 40 items; nothing was changed',
      hint: undefined,
      exit: 130,
    });
  });
});

describe('resultStream', () => {
  interface Row {
    line: number;
    result: string;
  }
  const columns: Array<Column<Row>> = [
    { header: 'line', value: (r) => r.line },
    { header: 'result', value: (r) => r.result },
  ];
  const rows: Row[] = [
    { line: 3, result: 'ok' },
    { line: 2, result: 'failed' },
  ];

  it.each([
    [{ json: true }, '[\n{"line":3,"result":"ok"},\n{"line":2,"result":"failed"}\n]\n'],
    [{ ndjson: true }, '{"line":3,"result":"ok"}\n{"line":2,"result":"failed"}\n'],
    [{}, '3\tok\n2\tfailed\n'],
  ])('streams results in the order they finish with %j', async (globals, expected) => {
    const t = testContext({ globals });
    const stream = resultStream(t.ctx, columns);
    for (const row of rows) await stream.add(row);
    await stream.end();
    expect(t.stdout()).toBe(expected);
    expect(stream.closed.aborted).toBe(false);
  });

  it('an empty --json run prints []', async () => {
    const t = testContext({ globals: { json: true } });
    const stream = resultStream(t.ctx, columns);
    await stream.end();
    expect(t.stdout()).toBe('[]\n');
  });

  it('a terminal table comes at the end, in line order', async () => {
    const t = testContext({ tty: true, env: { NO_COLOR: '1' } });
    const stream = resultStream(t.ctx, columns);
    for (const row of rows) expect(stream.add(row)).toBeUndefined();
    expect(t.stdout()).toBe('');
    await stream.end();
    expect(t.stdout()).toBe('LINE  RESULT\n2     failed\n3     ok\n');
  });

  it('writes a batch once it holds about 16 KB, and waits for it', async () => {
    const t = testContext({ globals: { ndjson: true } });
    const stream = resultStream(t.ctx, columns);
    const pending: Array<Promise<void> | undefined> = [];
    for (let i = 0; i < 82; i++) pending.push(stream.add({ line: i, result: 'ok' }));
    expect(pending.slice(0, 81).every((p) => p === undefined)).toBe(true);
    expect(pending[81]).toBeInstanceOf(Promise);
    await pending[81];
    expect(t.stdout().split('\n')).toHaveLength(83);
    await stream.end();
  });

  it('stops writing and aborts `closed` when stdout closes; later rows are dropped', async () => {
    const t = testContext({ globals: { ndjson: true } });
    const stream = resultStream(t.ctx, columns);
    t.ctx.io.stdout.destroy();
    await new Promise((r) => setImmediate(r));
    expect(stream.closed.aborted).toBe(true);
    expect(stream.add(rows[0]!)).toBeUndefined();
    await stream.end();
    expect(t.stdout()).toBe('');
  });
});
