// The bulk runner's rarer ends, each pinned in process (session 22, runner.ts measured alone with
// the bulk selection: these were its survivors and the mutants no test reached): a journaled item
// whose state cannot be read, items done though their answer was lost or unread, a journal that
// cannot be written or throws something else, a source that fails or is cut, a second halt, a
// dry run's unchecked items, and a stop that comes once every item was tried.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BulkItem, BulkResult } from '../../src/bulk/item.js';
import { Journal } from '../../src/bulk/journal.js';
import { JournalWriteError } from '../../src/bulk/journal-disk.js';
import { UnknownWordsError } from '../../src/bulk/judge.js';
import { runItems } from '../../src/bulk/runner.js';
import { SourceCut } from '../../src/bulk/source-pull.js';
import { AuthError, InterruptedError } from '../../src/errors.js';
import { ApiError, ConnectionError, NotFoundError, OutcomeUnknownError } from '../../src/http/errors.js';
import { AcceptedUnreadError, GoneAfterLostAnswerError } from '../../src/platform/errors.js';
import { tempDir } from '../helpers/temp.js';

const NOW = Date.parse('2026-01-15T09:30:00Z');
const now = () => NOW;
const never = new AbortController().signal;
const items = (n: number): Array<BulkItem<number>> =>
  Array.from({ length: n }, (_, i) => ({ key: `k${i}`, line: i + 2, data: i }));
const journalAt = () => join(tempDir('svc-runner-ends-'), 'j.ndjson');
const journalIn = (path = journalAt()) => {
  const journal = Journal.load(path, 'op', now);
  journal.start();
  return journal;
};
/** What the journal at `path` tells the next run. */
const reread = (path: string) => Journal.load(path, 'op', now);
const unavailable = () => new ApiError({ status: 503, code: 'unavailable', message: 'later' });
const notFound = () => new ApiError({ status: 404, code: 'not_found', message: 'no such user' });
const beyondCap = () => {
  const error = new ApiError({ status: 429, code: 'rate_limited', message: 'slow down' });
  error.waitBeyondCap = { askedMs: 3_600_000, capMs: 60_000, until: NOW + 3_600_000 };
  return error;
};
const diskFull = () =>
  JournalWriteError.of('the journal /j.ndjson', Object.assign(new Error('no space'), { code: 'ENOSPC' }));
/** A journal whose writes all fail with `error`. */
const failingJournal = (error: unknown) => {
  const journal = journalIn();
  journal.record = () => {
    throw error;
  };
  journal.recordFailure = () => {
    throw error;
  };
  return journal;
};
const run = async (
  options: Partial<Parameters<typeof runItems<number>>[0]> &
    Pick<Parameters<typeof runItems<number>>[0], 'work'>,
) => {
  const results: BulkResult[] = [];
  const summary = await runItems<number>({
    items: items(1),
    concurrency: 1,
    runId: 'run',
    stop: never,
    now,
    onResult: (r) => {
      results.push(r);
    },
    ...options,
  });
  return { summary, results };
};

describe('runItems: a journaled item whose state cannot be read', () => {
  const journaledWith = (error: unknown) => {
    const path = journalAt();
    journalIn(path).record('k0', { id: 'g1' });
    return {
      journal: reread(path),
      work: async () => {
        throw new Error('a journaled item is never sent again');
      },
      journaled: async () => {
        throw error;
      },
    };
  };

  it('is failed and still owed, with the read error; nothing halts for a passing failure', async () => {
    const { summary, results } = await run(journaledWith(unavailable()));
    expect(results).toEqual([
      {
        line: 2,
        key: 'k0',
        status: 'failed',
        reason: 'journal',
        id: 'g1',
        error: { code: 'unavailable', message: 'later', status: 503 },
      },
    ]);
    expect(summary).toMatchObject({ total: 1, failed: 1, unknown: 0, unsettled: 1, stopped: false });
    expect(summary.halted).toBeUndefined();
  });

  it('in a dry run, is not checked (unknown, not owed); a definite refusal is still failed', async () => {
    const unchecked = await run({ ...journaledWith(unavailable()), dryRun: true });
    expect(unchecked.results).toEqual([
      {
        line: 2,
        key: 'k0',
        status: 'unknown',
        reason: 'journal',
        id: 'g1',
        error: { code: 'unavailable', message: 'could not be checked: later', status: 503 },
      },
    ]);
    expect(unchecked.summary).toMatchObject({ total: 1, failed: 0, unknown: 1, unsettled: 0 });
    const refused = await run({ ...journaledWith(notFound()), dryRun: true });
    expect(refused.results).toEqual([
      {
        line: 2,
        key: 'k0',
        status: 'failed',
        reason: 'journal',
        id: 'g1',
        error: { code: 'not_found', message: 'no such user', status: 404 },
      },
    ]);
    expect(refused.summary).toMatchObject({ failed: 1, unknown: 0, unsettled: 1 });
  });

  it('a rate limit longer than svc waits halts the run with it', async () => {
    const error = beyondCap();
    const { summary } = await run({ ...journaledWith(error), items: items(2) });
    expect(summary).toMatchObject({ total: 1, failed: 1, stopped: true });
    expect(summary.halted).toBe(error);
  });
});

describe('runItems: done, though its answer was lost or could not be read', () => {
  const gone = () =>
    new GoneAfterLostAnswerError(
      Object.assign(new NotFoundError({ status: 404, code: 'assignment_not_found', message: 'no grant' }), {
        lostAnswer: 'HTTP 503',
      }),
    );
  const bodyless = () => new AcceptedUnreadError('answered 204 without a body', {}, 204, true, true);

  it('a retry that found it gone after a lost answer: ok, journaled, counted as gone', async () => {
    const error = gone();
    const path = journalAt();
    const { summary, results } = await run({
      journal: journalIn(path),
      work: async () => {
        throw error;
      },
    });
    const detail = { reason: 'gone_after_lost_answer', detail: error.message };
    expect(results).toEqual([{ line: 2, key: 'k0', status: 'ok', ...detail }]);
    expect(reread(path).get('k0')).toEqual(detail);
    expect(summary).toMatchObject({ total: 1, ok: 1, failed: 0, gone: 1 });
    // Without a journal (or in a dry run): the same row, nothing recorded.
    const bare = await run({
      work: async () => {
        throw error;
      },
    });
    expect(bare.results).toEqual([{ line: 2, key: 'k0', status: 'ok', ...detail }]);
    expect(bare.summary).toMatchObject({ ok: 1, gone: 1 });
  });

  it("a worker's own found_after_lost_answer is counted as gone", async () => {
    const { summary } = await run({
      items: items(2),
      work: async () => ({ reason: 'found_after_lost_answer' }),
    });
    expect(summary).toMatchObject({ ok: 2, gone: 2 });
  });

  it('an accepted answer without a body: ok, journaled; without a journal, nothing recorded', async () => {
    const path = journalAt();
    const journaled = await run({
      journal: journalIn(path),
      work: async () => {
        throw bodyless();
      },
    });
    const detail = { reason: 'answered_without_body', status_code: 204 };
    expect(journaled.results).toEqual([{ line: 2, key: 'k0', status: 'ok', ...detail }]);
    expect(reread(path).get('k0')).toEqual(detail);
    const bare = await run({
      work: async () => {
        throw bodyless();
      },
    });
    expect(bare.results).toEqual([{ line: 2, key: 'k0', status: 'ok', ...detail }]);
  });

  it('either, with a journal that cannot be written: ok and not_journaled, the run halted', async () => {
    for (const make of [gone, bodyless]) {
      const full = diskFull();
      const { summary, results } = await run({
        journal: failingJournal(full),
        items: items(2),
        work: async () => {
          throw make();
        },
      });
      expect(results.map((r) => [r.status, r.reason])).toEqual([['ok', 'not_journaled']]);
      expect(summary).toMatchObject({ total: 1, ok: 1, unjournaled: 1, stopped: true });
      expect(summary.halted).toBe(full);
    }
  });
});

describe('runItems: a journal that cannot be written', () => {
  it('an item made (status ok or none) is ok and not_journaled; one the worker says was not made is not', async () => {
    for (const [detail, row, unjournaled] of [
      [{ status: 'ok', id: 'g1' }, { status: 'ok', id: 'g1', reason: 'not_journaled' }, 1],
      [{ id: 'g1' }, { status: 'ok', id: 'g1', reason: 'not_journaled' }, 1],
      [
        { status: 'skipped', reason: 'already_assigned' },
        { status: 'skipped', reason: 'already_assigned' },
        undefined,
      ],
    ] as const) {
      const full = diskFull();
      const { summary, results } = await run({
        journal: failingJournal(full),
        work: async () => ({ ...detail }),
      });
      expect(results).toEqual([{ line: 2, key: 'k0', ...row }]);
      expect(summary.unjournaled).toBe(unjournaled);
      expect(summary.halted).toBe(full);
    }
  });

  it("a refused item's attempt that cannot be noted halts the run; nothing is counted unjournaled", async () => {
    const full = diskFull();
    const { summary, results } = await run({
      journal: failingJournal(full),
      items: items(2),
      work: async () => {
        throw notFound();
      },
    });
    expect(results.map((r) => [r.key, r.status, r.reason, r.error?.code])).toEqual([
      ['k0', 'failed', undefined, 'not_found'],
    ]);
    expect(summary).toMatchObject({ total: 1, failed: 1, refused: 1, unsettled: 1, stopped: true });
    expect(summary.unjournaled).toBeUndefined();
    expect(summary.halted).toBe(full);
  });

  it('a journal that throws anything else fails the item (unexpected) and halts nothing', async () => {
    const { summary, results } = await run({
      journal: failingJournal(new TypeError('record is broken')),
      items: items(2),
      work: async () => ({}),
    });
    expect(results.map((r) => [r.key, r.status, r.error?.code, r.error?.message])).toEqual([
      ['k0', 'failed', 'unexpected', 'record is broken'],
      ['k1', 'failed', 'unexpected', 'record is broken'],
    ]);
    expect(summary).toMatchObject({ total: 2, failed: 2, stopped: false });
    expect(summary.halted).toBeUndefined();
    expect(summary.unjournaled).toBeUndefined();
  });
});

describe("runItems: the source's ends", () => {
  const scripted = (steps: Array<() => IteratorResult<BulkItem<number>>>) => {
    let pulls = 0;
    let closed = 0;
    const source = {
      [Symbol.iterator]() {
        return {
          next: () => (steps[pulls++] ?? (() => ({ done: true, value: undefined })))(),
          return: () => {
            closed++;
            return { done: true, value: undefined };
          },
        };
      },
    } as Iterable<BulkItem<number>>;
    return { source, pulls: () => pulls, closed: () => closed };
  };
  const item = (key: string) => () => ({ done: false as const, value: { key, data: 0 } });

  it('a journal that cannot note the items taken (Journal.plan) halts the run: not a read failure', async () => {
    const full = diskFull();
    const { source } = scripted([
      () => {
        throw full;
      },
    ]);
    const { summary, results } = await run({ items: source, work: async () => ({}) });
    expect(results).toEqual([]);
    expect(summary).toMatchObject({ total: 0, stopped: true });
    expect(summary.halted).toBe(full);
    expect(summary.unread).toBeUndefined();
  });

  it('after SourceCut nothing more is read from the source, and it is not closed', async () => {
    const s = scripted([
      item('a'),
      () => {
        throw new SourceCut();
      },
      item('c'),
    ]);
    const { results } = await run({ items: s.source, work: async () => ({}) });
    expect(results.map((r) => r.key)).toEqual(['a']);
    expect([s.pulls(), s.closed()]).toEqual([2, 0]);
  });

  // review29a L2: SourcePull.close() skips return() after a read failure (source-pull.ts, !pullError).
  it("after a read failure nothing more is read from the source, it is not closed, and the failure is the run's", async () => {
    const failure = new Error('page 2 could not be fetched');
    const s = scripted([
      () => {
        throw failure;
      },
      item('b'),
    ]);
    const { summary, results } = await run({ items: s.source, work: async () => ({}) });
    expect(results).toEqual([]);
    expect(summary.unread).toBe(failure);
    expect([s.pulls(), s.closed()]).toEqual([1, 0]);
  });

  it('a stop after the source ended and every item was tried leaves the run done, not stopped, even with an unknown outcome', async () => {
    const stop = new AbortController();
    let ended!: () => void;
    const sourceEnded = new Promise<void>((resolve) => (ended = resolve));
    const s = scripted([
      item('a'),
      () => {
        ended();
        return { done: true, value: undefined };
      },
    ]);
    const { summary, results } = await run({
      items: s.source,
      // The second worker's pull finds the end while the first does its item.
      concurrency: 2,
      stop: stop.signal,
      work: async () => {
        await sourceEnded;
        stop.abort();
        throw new OutcomeUnknownError(new ConnectionError('cannot reach http://x: other side closed'));
      },
    });
    expect(results.map((r) => [r.key, r.status])).toEqual([['a', 'unknown']]);
    expect(summary).toMatchObject({ total: 1, unknown: 1, stopped: false });
  });
});

describe('runItems: halts, stops and dry runs', () => {
  it("the first halt is the run's: a second item failing the same way meanwhile does not replace it", async () => {
    const first = new AuthError('SVC_TOKEN was rejected: token expired');
    const second = new AuthError('SVC_TOKEN was rejected: token revoked');
    let secondStarted!: () => void;
    const started = new Promise<void>((resolve) => (secondStarted = resolve));
    let firstReported!: () => void;
    const reported = new Promise<void>((resolve) => (firstReported = resolve));
    const { summary } = await run({
      items: items(2),
      concurrency: 2,
      work: async (item) => {
        if (item.key === 'k0') {
          await started;
          throw first;
        }
        secondStarted();
        await reported;
        throw second;
      },
      onResult: (r) => {
        if (r.key === 'k0') firstReported();
      },
    });
    expect(summary).toMatchObject({ total: 2, failed: 2 });
    expect(summary.halted).toBe(first);
  });

  it('an interrupted error without a stop is an ordinary failure: owed, the run not cut', async () => {
    const { summary, results } = await run({
      work: async () => {
        throw new InterruptedError('the wait was cut short');
      },
    });
    expect(results).toEqual([
      {
        line: 2,
        key: 'k0',
        status: 'failed',
        error: { code: 'interrupted', message: 'the wait was cut short' },
      },
    ]);
    expect(summary).toMatchObject({ total: 1, failed: 1, unsettled: 1, stopped: false });
  });

  it('an item refused as a stop comes is refused (a new key next run), not left for the resume', async () => {
    const stop = new AbortController();
    const journal = journalIn();
    const { summary } = await run({
      journal,
      stop: stop.signal,
      work: async () => {
        stop.abort();
        throw notFound();
      },
    });
    expect(summary).toMatchObject({ total: 1, failed: 1, refused: 1, unsettled: 1 });
    expect(journal.attempts('k0')).toBe(1);
  });

  it('a dry run: an unanswered check is unknown, words svc does not know counted apart, a long rate limit halts', async () => {
    const words = await run({
      dryRun: true,
      items: items(2),
      work: async (item) => {
        throw item.key === 'k0' ? unavailable() : new UnknownWordsError('the server said "maybe"');
      },
    });
    expect(words.results).toEqual([
      {
        line: 2,
        key: 'k0',
        status: 'unknown',
        error: { code: 'unavailable', message: 'could not be checked: later', status: 503 },
      },
      {
        line: 3,
        key: 'k1',
        status: 'unknown',
        error: { code: 'unknown_status', message: 'could not be checked: the server said "maybe"' },
      },
    ]);
    expect(words.summary).toMatchObject({ total: 2, unknown: 2, unknownWords: 1, unsettled: 0 });
    expect(words.summary.halted).toBeUndefined();
    const plain = await run({ dryRun: true, work: async () => Promise.reject(unavailable()) });
    expect(plain.summary.unknownWords).toBeUndefined();
    const error = beyondCap();
    const limited = await run({ dryRun: true, items: items(2), work: async () => Promise.reject(error) });
    expect(limited.summary).toMatchObject({ total: 1, unknown: 1, stopped: true });
    expect(limited.summary.halted).toBe(error);
  });
});
