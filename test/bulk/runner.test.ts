// Over 300 lines: the bulk runner's rules (concurrency, journal, resume, halts, Ctrl-C), one
// behaviour per test with scripted workers.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BulkItem, BulkResult, WorkCall } from '../../src/bulk/item.js';
import { defaultJournalPath, Journal } from '../../src/bulk/journal.js';
import { runItems } from '../../src/bulk/runner.js';
import { SourceCut } from '../../src/bulk/source-pull.js';
import { AuthError, UsageError } from '../../src/errors.js';
import { ApiError, ConnectionError, OutcomeUnknownError } from '../../src/http/errors.js';
import { deriveIdempotencyKey } from '../../src/http/idempotency.js';
import { IdempotencyInProgressError } from '../../src/platform/errors.js';
import { tempDir } from '../helpers/temp.js';

const dir = () => tempDir('svc-runner-');
const NOW = Date.parse('2026-01-15T09:30:00Z');
const now = () => NOW;
const items = (n: number): Array<BulkItem<number>> =>
  Array.from({ length: n }, (_, i) => ({ key: `k${i}`, line: i + 2, data: i }));
const never = new AbortController().signal;
const notFound = () =>
  new ApiError({ status: 404, code: 'not_found', message: 'no such user', requestId: 'req_1' });

describe('Journal', () => {
  it('starts a run with an id and a start time, records items, and reads them back', () => {
    const path = join(dir(), 'j.ndjson');
    const j = Journal.load(path, 'op-1', () => NOW + 600);
    expect(j.run).toEqual({
      runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      startedAtMs: NOW,
      resumed: false,
    });
    j.start();
    j.record('a', { id: 1 });
    j.recordFailure('b');
    j.recordFailure('b');
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"key":"c","sta`);
    const again = Journal.load(path, 'op-1', now);
    expect(again.run).toEqual({ runId: j.run.runId, startedAtMs: NOW, resumed: true });
    expect([again.has('a'), again.has('b'), again.has('c')]).toEqual([true, false, false]);
    expect([again.get('a'), again.attempts('b'), again.attempts('a')]).toEqual([{ id: 1 }, 2, 0]);
    expect([...again.finished()]).toEqual([{ id: 1 }]);
  });

  it("keeps the run's anchor (its durations' start, on the platform's clock) in its first line; an older journal's is its start", () => {
    const path = join(dir(), 'j.ndjson');
    const j = Journal.load(path, 'op-1', now);
    expect(j.anchor(() => NOW + 7_200_400)).toBe(NOW + 7_200_000);
    expect(j.anchor(() => 0)).toBe(NOW + 7_200_000);
    j.start();
    expect(JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!).anchor).toBe(
      new Date(NOW + 7_200_000).toISOString().replace('.000', ''),
    );
    // Resumed later, on a platform whose clock moved again: the same anchor.
    expect(Journal.load(path, 'op-1', () => NOW + 999_000).anchor(() => NOW + 9_999_000)).toBe(
      NOW + 7_200_000,
    );
    writeFileSync(
      path,
      `{"journal":2,"operation":"op-1","run_id":"r","started_at":"2026-01-15T12:00:00Z"}\n`,
    );
    expect(Journal.load(path, 'op-1', now).anchor(() => NOW + 7_200_000)).toBe(
      Date.parse('2026-01-15T12:00:00Z'),
    );
  });

  it("names a new run's start as its anchor when that is under a minute off (one start in every line, CI s14)", () => {
    const path = join(dir(), 'j.ndjson');
    // Opened in one second, anchored in the next (a DLQ run anchors after counting its queue).
    const j = Journal.load(path, 'op-1', () => NOW + 999);
    expect(j.anchor(() => NOW + 1_200)).toBe(NOW + 1_000);
    expect(j.run.startedAtMs).toBe(NOW + 1_000);
    j.start();
    expect(JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!)).toMatchObject({
      started_at: '2026-01-15T09:30:01Z',
      anchor: '2026-01-15T09:30:01Z',
    });
    // A platform clock hours off keeps both: the resumed run names the two (resuming()).
    const far = Journal.load(join(dir(), 'j.ndjson'), 'op-1', now);
    far.anchor(() => NOW + 7_200_000);
    expect(far.run.startedAtMs).toBe(NOW);
  });

  it('refuses another operation, and a journal without a run', () => {
    const path = join(dir(), 'j.ndjson');
    Journal.load(path, 'op-1', now).start();
    expect(() => Journal.load(path, 'op-2', now)).toThrow(UsageError);
    writeFileSync(path, '{"journal":1,"operation":"op-1"}\n');
    expect(() => Journal.load(path, 'op-1', now)).toThrow('belongs to another operation');
  });

  it('lives under the state directory, named by the operation', () => {
    expect(defaultJournalPath({ SVC_STATE_DIR: '/s' }, 'grants', 'abcdef0123456789ff')).toBe(
      '/s/journals/grants-abcdef0123456789.ndjson',
    );
    expect(defaultJournalPath({ SVC_STATE_DIR: '', XDG_STATE_HOME: '/x' }, 'replay', 'ab')).toBe(
      '/x/svc/journals/replay-ab.ndjson',
    );
    // A relative XDG_STATE_HOME is invalid (XDG Base Directory spec) and ignored.
    expect(defaultJournalPath({ XDG_STATE_HOME: 'rel' }, 'grants', 'ab')).toBe(
      join(homedir(), '.local/state/svc/journals/grants-ab.ndjson'),
    );
    expect(defaultJournalPath({}, 'grants', 'ab')).toBe(
      join(homedir(), '.local/state/svc/journals/grants-ab.ndjson'),
    );
  });

  it('an empty or blank file is a new run; a file that cannot be read, or whose first line is not a header, is refused', () => {
    const path = join(dir(), 'j.ndjson');
    writeFileSync(path, ' \n\n');
    const fresh = Journal.load(path, 'op', () => NOW + 999);
    expect(fresh.run).toEqual({ runId: expect.any(String), startedAtMs: NOW, resumed: false });
    const folder = dir();
    expect(() => Journal.load(folder, 'op', now)).toThrow(`cannot read journal ${folder}: it is a directory`);
    for (const first of [
      'not json',
      '{"journal":2,"operation":"op","run_id":"r","started_at":"later"}',
      '{"operation":"op","started_at":"2026-01-15T09:30:00Z"}',
    ]) {
      writeFileSync(path, `${first}\n`);
      const error = (() => {
        try {
          Journal.load(path, 'op', now);
        } catch (e) {
          return e as UsageError;
        }
      })();
      expect(error).toBeInstanceOf(UsageError);
      expect([error?.message, error?.hint]).toEqual([
        `journal ${path} belongs to another operation`,
        'use the same file, flags, profile, credential and tenant to resume, or pass another --journal',
      ]);
    }
  });

  it('writes its header once, skips lines without a key, and removes itself when done', () => {
    const path = join(dir(), 'deep', 'j.ndjson');
    const j = Journal.load(path, 'op', now);
    j.start();
    j.start();
    j.record('a');
    j.record('b', { id: 'b1' });
    writeFileSync(path, `${readFileSync(path, 'utf8')}\n{"status":"ok"}\n{"key":7}\n`);
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    expect(lines.filter((l) => l.includes('"run_id"'))).toHaveLength(1);
    expect(JSON.parse(lines[1]!)).toEqual({ key: 'a', status: 'ok', at: '2026-01-15T09:30:00Z' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = Journal.load(path, 'op', now);
    expect([again.has('a'), again.has('b'), again.get('a'), again.get('b')]).toEqual([
      true,
      true,
      undefined,
      { id: 'b1' },
    ]);
    expect([...again.finished()]).toEqual([{ id: 'b1' }]);
    again.start();
    expect(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"run_id"')),
    ).toHaveLength(1);
    j.remove();
    expect(existsSync(path)).toBe(false);
    again.remove();
  });
});

describe('runItems', () => {
  it('runs every item with bounded concurrency and reports each result', async () => {
    let running = 0;
    let peak = 0;
    const results: BulkResult[] = [];
    const summary = await runItems({
      items: items(40),
      concurrency: 5,
      runId: 'run',
      stop: never,
      now,
      work: async (item) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 2));
        running--;
        if (item.data % 10 === 3) throw notFound();
        return { n: item.data };
      },
      onResult: (r) => {
        results.push(r);
      },
    });
    expect(peak).toBe(5);
    expect(summary).toMatchObject({
      total: 40,
      ok: 36,
      failed: 4,
      skipped: 0,
      unsettled: 4,
      refused: 4,
      stopped: false,
    });
    expect(results.find((r) => r.key === 'k3')).toEqual({
      line: 5,
      key: 'k3',
      status: 'failed',
      error: { code: 'not_found', message: 'no such user', status: 404, request_id: 'req_1' },
    });
    expect(results.find((r) => r.key === 'k4')).toEqual({ line: 6, key: 'k4', status: 'ok', n: 4 });
  });

  it('derives keys from the run, the item and its attempt: a refused item gets a new key, a lost answer the same one', async () => {
    const path = join(dir(), 'j.ndjson');
    const journal = Journal.load(path, 'op', now);
    journal.start();
    const keys = new Map<string, string[]>();
    const work = async (item: BulkItem<number>, call: WorkCall) => {
      keys.set(item.key, [...(keys.get(item.key) ?? []), call.idempotencyKey]);
      if (item.data === 0) throw notFound();
      if (item.data === 1) throw new ApiError({ status: 503, code: 'unavailable', message: 'later' });
      return {};
    };
    const run = () =>
      runItems({
        items: items(3),
        concurrency: 1,
        journal,
        runId: journal.run.runId,
        stop: never,
        now,
        work,
      });
    expect(await run()).toMatchObject({ ok: 1, failed: 2, unsettled: 2, refused: 1 });
    expect(await run()).toMatchObject({ ok: 0, skipped: 1, failed: 2 });
    const key = (item: string, attempt: number) =>
      deriveIdempotencyKey(journal.run.runId, item, String(attempt));
    expect(keys.get('k0')).toEqual([key('k0', 0), key('k0', 1)]);
    expect(keys.get('k1')).toEqual([key('k1', 0), key('k1', 0)]);
    expect(keys.get('k2')).toEqual([key('k2', 0)]);
  });

  it('an item handled but not done as asked (status in the details) is failed or skipped, and journaled', async () => {
    const journal = Journal.load(join(dir(), 'j.ndjson'), 'op', now);
    journal.start();
    const summary = await runItems({
      items: items(2),
      concurrency: 1,
      journal,
      runId: 'run',
      stop: never,
      now,
      work: async (item) =>
        item.data === 0
          ? { status: 'skipped', reason: 'already_assigned' }
          : { status: 'failed', error: { code: 'x', message: 'y' } },
    });
    expect(summary).toMatchObject({ ok: 0, skipped: 1, failed: 1, unsettled: 0 });
    expect([journal.has('k0'), journal.has('k1')]).toEqual([true, true]);
  });

  it('after a stop starts nothing new, lets in-flight items finish, and a re-run resumes from the journal', async () => {
    const path = join(dir(), 'j.ndjson');
    const stop = new AbortController();
    let finished = 0;
    const journal = Journal.load(path, 'op', now);
    journal.start();
    const first = await runItems({
      items: items(100),
      concurrency: 4,
      journal,
      runId: journal.run.runId,
      stop: stop.signal,
      now,
      work: async (item, call) => {
        if (item.data === 10) stop.abort();
        await new Promise((r) => setTimeout(r, 5));
        expect(call.signal.aborted).toBe(false);
        finished++;
        return {};
      },
    });
    expect(first.stopped).toBe(true);
    expect(first.ok).toBe(finished);
    expect(finished).toBeLessThan(20);
    const done = new Set<string>();
    const resumed = Journal.load(path, 'op', now);
    const second = await runItems({
      items: items(100),
      concurrency: 4,
      journal: resumed,
      runId: resumed.run.runId,
      stop: never,
      now,
      work: async (item) => {
        done.add(item.key);
        return {};
      },
    });
    expect(second).toMatchObject({ total: 100, ok: 100 - finished, skipped: finished, stopped: false });
    expect(done.size + finished).toBe(100);
  });

  it('pulls lazily from async iterables; a failure to read the next item ends the run, its summary holding that error', async () => {
    let produced = 0;
    async function* gen() {
      for (let i = 0; i < 10; i++) {
        produced++;
        if (i === 7) throw new Error('page 2 could not be fetched');
        yield { key: `a${i}`, data: i };
      }
    }
    let worked = 0;
    const run = runItems({
      items: gen(),
      concurrency: 3,
      runId: 'run',
      stop: never,
      now,
      work: async () => {
        worked++;
        return {};
      },
    });
    // The items read were done: the summary counts them, and the error is the run's end (finishRun).
    const summary = await run;
    expect(summary).toMatchObject({ total: 7, ok: 7, stopped: false });
    expect(String(summary.unread)).toBe('Error: page 2 could not be fetched');
    expect([produced, worked]).toEqual([8, 7]);
  });

  it('a source that stops reading because the run is stopping (SourceCut) leaves the run cut, not done (review15 R15-2)', async () => {
    const stop = new AbortController();
    async function* gen() {
      yield { key: 'a', data: 0 };
      yield { key: 'b', data: 1 };
      // As QueueSnapshot does while it waits to list the queue again: the stop comes meanwhile.
      stop.abort();
      throw new SourceCut();
    }
    const summary = await runItems({
      items: gen(),
      concurrency: 1,
      runId: 'run',
      stop: stop.signal,
      now,
      work: async () => ({}),
    });
    expect(summary).toMatchObject({ total: 2, ok: 2, stopped: true });
    expect(summary.unread).toBeUndefined();
  });
});

describe('runItems: what a failure is', () => {
  const cases: Array<[string, boolean, () => unknown, NonNullable<BulkResult['error']>]> = [
    [
      '400 with a code and a request id',
      true,
      () => new ApiError({ status: 400, code: 'invalid', message: 'bad row', requestId: 'req_9' }),
      { code: 'invalid', message: 'bad row', status: 400, request_id: 'req_9' },
    ],
    [
      '499 without a code',
      true,
      () => new ApiError({ status: 499, message: 'odd' }),
      { code: 'api_error', message: 'odd', status: 499 },
    ],
    [
      '408',
      false,
      () => new ApiError({ status: 408, code: 'timeout', message: 'slow' }),
      { code: 'timeout', message: 'slow', status: 408 },
    ],
    [
      '429',
      false,
      () => new ApiError({ status: 429, code: 'rate_limited', message: 'later' }),
      { code: 'rate_limited', message: 'later', status: 429 },
    ],
    [
      '500',
      false,
      () => new ApiError({ status: 500, code: 'boom', message: 'boom' }),
      { code: 'boom', message: 'boom', status: 500 },
    ],
    [
      '409 of an earlier attempt still running',
      false,
      () =>
        new IdempotencyInProgressError({
          status: 409,
          code: 'idempotency_request_in_progress',
          message: 'still running',
        }),
      { code: 'idempotency_request_in_progress', message: 'still running', status: 409 },
    ],
    [
      'a connection error',
      false,
      () => new ConnectionError('connection refused'),
      { code: 'connection_error', message: 'connection refused' },
    ],
    [
      "svc's own error without a code",
      false,
      () => new UsageError('no such role'),
      { code: 'usage', message: 'no such role' },
    ],
    [
      'anything else',
      false,
      () => new TypeError('x is not a function'),
      { code: 'unexpected', message: 'x is not a function' },
    ],
  ];

  it.each(cases)(
    '%s: refused (a new key next run): %s; reported as given',
    async (_name, refused, make, error) => {
      const journal = Journal.load(join(dir(), 'j.ndjson'), 'op', now);
      journal.start();
      const results: BulkResult[] = [];
      const summary = await runItems({
        items: items(1),
        concurrency: 1,
        journal,
        runId: 'run',
        stop: never,
        now,
        work: async () => {
          throw make();
        },
        onResult: (r) => {
          results.push(r);
        },
      });
      expect(results).toEqual([{ line: 2, key: 'k0', status: 'failed', error }]);
      expect(summary).toMatchObject({ total: 1, failed: 1, unsettled: 1, refused: refused ? 1 : 0 });
      expect(journal.attempts('k0')).toBe(refused ? 1 : 0);
      expect(journal.has('k0')).toBe(false);
    },
  );

  it('an item without a line is reported without one; the summary times the run by its clock', async () => {
    let t = NOW;
    const results: BulkResult[] = [];
    const summary = await runItems({
      items: [{ key: 'only', data: 1 }],
      concurrency: 0,
      runId: 'run',
      stop: never,
      now: () => t,
      work: async () => {
        t += 1500;
        return { id: 'x' };
      },
      onResult: (r) => {
        results.push(r);
      },
    });
    expect(results).toEqual([{ key: 'only', status: 'ok', id: 'x' }]);
    expect(summary).toEqual({
      total: 1,
      ok: 1,
      failed: 0,
      skipped: 0,
      unknown: 0,
      unsettled: 0,
      refused: 0,
      blocked: 0,
      stopped: false,
      elapsedMs: 1500,
    });
  });

  it('a stop before the first item starts nothing and closes the source', async () => {
    const stop = new AbortController();
    stop.abort();
    let closed = false;
    let produced = 0;
    const source = {
      [Symbol.iterator]() {
        return {
          next: () => ({ done: false, value: { key: `s${produced++}`, data: 0 } }),
          return: () => {
            closed = true;
            return { done: true, value: undefined };
          },
        };
      },
    } as Iterable<BulkItem<number>>;
    const summary = await runItems({
      items: source,
      concurrency: 2,
      runId: 'run',
      stop: stop.signal,
      now,
      work: async () => ({}),
    });
    expect(summary).toMatchObject({ total: 0, stopped: true });
    expect([produced, closed]).toEqual([0, true]);
  });
});

describe('runItems: outcomes it cannot know, and a credential that stops working', () => {
  const lost = () => new OutcomeUnknownError(new ConnectionError('cannot reach http://x: other side closed'));

  it('an item whose answers were all lost is unknown, not journaled, and what needs it waits', async () => {
    const journal = Journal.load(join(dir(), 'j.ndjson'), 'op', now);
    journal.start();
    const results: BulkResult[] = [];
    const summary = await runItems<number>({
      items: [
        { key: 'a', data: 0, needed: true },
        { key: 'b', data: 1, after: ['a'] },
        { key: 'c', data: 2 },
      ],
      concurrency: 1,
      work: async (item) => {
        if (item.key === 'a') throw lost();
        return {};
      },
      onResult: (r) => {
        results.push(r);
      },
      journal,
      runId: 'r',
      stop: never,
      now,
    });
    expect(results.map((r) => [r.key, r.status, r.error?.code])).toEqual([
      ['a', 'unknown', 'connection_error'],
      ['b', 'failed', 'dependency_failed'],
      ['c', 'ok', undefined],
    ]);
    expect(summary).toMatchObject({ ok: 1, failed: 1, unknown: 1, refused: 0, stopped: false });
    expect([journal.has('a'), journal.has('c')]).toEqual([false, true]);
  });

  it('the first item refused for authentication stops the run: nothing new starts', async () => {
    const started: string[] = [];
    const refused = new AuthError('SVC_TOKEN was rejected: token expired');
    const summary = await runItems<number>({
      items: items(5),
      concurrency: 1,
      work: async (item) => {
        started.push(item.key);
        if (item.key === 'k1') throw refused;
        return {};
      },
      runId: 'r',
      stop: never,
      now,
    });
    expect(started).toEqual(['k0', 'k1']);
    expect(summary).toMatchObject({ total: 2, ok: 1, failed: 1, stopped: true, halted: refused });
  });
});
