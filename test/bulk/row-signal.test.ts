// A bulk row's own signal (src/http/retry.ts finishingItem): stopped with the run's, and holding
// nothing on the run's once the row has ended. Made by AbortSignal.any, each row's stayed listed
// on the run's stop signal for good on Node 20 (nodejs/node#55351): 55 MB at a million rows
// (review23b L1). Counts, not bytes: what the run's signals hold after the rows.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { BulkItem } from '../../src/bulk/item.js';
import { runItems } from '../../src/bulk/runner.js';
import { attemptsOnTheWire, finishingItem, finishingSent } from '../../src/http/retry.js';
import { dependants } from '../helpers/signal-holds.js';

const ROWS = 2000;
const items = (n: number): Array<BulkItem<number>> =>
  Array.from({ length: n }, (_, i) => ({ key: `k${i}`, data: i }));
describe("a bulk row's own signal", () => {
  it('hangs on the run’s signal only while its row runs: after 2,000 rows, nothing is left on it', async () => {
    const stop = new AbortController();
    const requests = finishingSent(stop.signal).signal;
    const before = dependants(stop.signal);
    let most = 0;
    const summary = await runItems({
      items: items(ROWS),
      concurrency: 4,
      runId: 'run',
      stop: stop.signal,
      requests,
      now: Date.now,
      work: async (_item, call) => {
        most = Math.max(most, getEventListeners(requests, 'abort').length);
        expect(call.signal).not.toBe(requests);
        expect(attemptsOnTheWire(call.signal)).toBeDefined();
        await new Promise((resolve) => setImmediate(resolve));
        return {};
      },
    });
    expect(summary).toMatchObject({ total: ROWS, ok: ROWS });
    expect(most).toBeLessThanOrEqual(4);
    expect(getEventListeners(requests, 'abort')).toHaveLength(0);
    // Was ROWS more: one per row, never pruned on Node 20; the runner's own stop was one more
    // (linked since, test/bulk/run-signals.test.ts). Only the requests' own, not yet ended, listens.
    if (before !== undefined) expect(dependants(stop.signal)).toBe(before);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
  });

  it('is stopped with the run’s, with its reason, while its row runs and when made after the stop', () => {
    const stop = new AbortController();
    const requests = finishingSent(stop.signal).signal;
    const row = finishingItem(requests);
    const ended = finishingItem(requests);
    ended.end();
    expect(getEventListeners(requests, 'abort')).toHaveLength(1);
    const reason = new Error('Ctrl-C');
    stop.abort(reason);
    expect([row.signal.aborted, row.signal.reason]).toEqual([true, reason]);
    expect(ended.signal.aborted).toBe(false);
    const late = finishingItem(requests);
    expect([late.signal.aborted, late.signal.reason]).toEqual([true, reason]);
    // Its attempts count in the run's (the "stopping: N requests in flight" line).
    const onTheWire = attemptsOnTheWire(late.signal);
    if (onTheWire) onTheWire.sent++;
    expect(attemptsOnTheWire(requests)?.sent).toBe(1);
  });

  it('is the signal itself for one not made by finishingSent', () => {
    const signal = new AbortController().signal;
    const own = finishingItem(signal);
    expect(own.signal).toBe(signal);
    own.end();
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});
