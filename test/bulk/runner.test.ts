import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultJournalPath, Journal } from '../../src/bulk/journal.js';
import { type BulkItem, type BulkResult, runItems, type WorkCall } from '../../src/bulk/runner.js';
import { UsageError } from '../../src/errors.js';
import { ApiError } from '../../src/http/errors.js';
import { deriveIdempotencyKey } from '../../src/http/idempotency.js';

const dir = () => mkdtempSync(join(tmpdir(), 'svc-runner-'));
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

  it('pulls lazily from async iterables; a failure to read the next item ends the run with that error', async () => {
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
    await expect(run).rejects.toThrow('page 2 could not be fetched');
    expect([produced, worked]).toEqual([8, 7]);
  });
});
