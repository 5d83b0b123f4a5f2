// A bulk run's and a token refresh's signals (src/system/linked-signal.ts): stopped with the
// command's Ctrl-C signal, and holding nothing on it once the run or the refresh has ended. Made
// by AbortSignal.any, each run left 3 signals listed on that signal for good on Node 20
// (nodejs/node#55351), and each refresh 1 (review23d; session 23's closing note). Counts, not bytes.
import { describe, expect, it } from 'vitest';
import { finishingSent } from '../../src/http/retry.js';
import { linkedSignal } from '../../src/system/linked-signal.js';
import { runVerb, testVerb } from '../helpers/bulk-verb.js';
import { useTempDirs } from '../helpers/context.js';
import { held } from '../helpers/signal-holds.js';

const dirs = useTempDirs();

describe("a bulk run's signals", () => {
  it('leave nothing on the command’s signal: five runs, their items done or failed', async () => {
    const ctrlC = new AbortController();
    const before = held(ctrlC.signal);
    for (const outcomes of [['ok', 'ok'], ['ok', 'fail'], ['ok'], ['fail', 'ok', 'ok'], ['ok']]) {
      const ran = await runVerb(dirs, testVerb(outcomes, { concurrency: 2 }), { signal: ctrlC.signal });
      expect(ran.code).toBe(outcomes.includes('fail') ? 7 : 0);
      // Was 3 more per run: the run's stop, the runner's, and its requests' (finishingSent).
      expect(held(ctrlC.signal)).toEqual(before);
    }
  });

  it('are stopped by Ctrl-C all the same: a stopped run says so (exit 130)', async () => {
    const ctrlC = new AbortController();
    const ran = await runVerb(
      dirs,
      testVerb(['ok', 'ok', 'ok'], {
        work: async (item) => {
          if (item.key === 'k0') ctrlC.abort();
          return {};
        },
      }),
      { signal: ctrlC.signal },
    );
    expect(ran.code).toBe(130);
    expect(held(ctrlC.signal)).toEqual({ dependants: 0, listeners: 0 });
  });
});

describe('finishingSent (a token refresh’s, a run’s requests)', () => {
  it('is stopped with its source while it lasts, and unlinked by end()', () => {
    const stop = new AbortController();
    const before = held(stop.signal);
    for (let i = 0; i < 100; i++) finishingSent(stop.signal).end();
    // Was 100 more: one per refresh.
    expect(held(stop.signal)).toEqual(before);
    const live = finishingSent(stop.signal);
    const ended = finishingSent(stop.signal);
    ended.end();
    const reason = new Error('Ctrl-C');
    stop.abort(reason);
    expect([live.signal.aborted, live.signal.reason]).toEqual([true, reason]);
    expect(ended.signal.aborted).toBe(false);
    const late = finishingSent(stop.signal);
    expect([late.signal.aborted, late.signal.reason]).toEqual([true, reason]);
  });
});

describe('linkedSignal', () => {
  it('is stopped with the first of its sources, with its reason, and then holds nothing on either', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignal([a.signal, b.signal]);
    expect(held(a.signal)).toEqual({ dependants: 0, listeners: 1 });
    b.abort('closed');
    expect([linked.signal.aborted, linked.signal.reason]).toEqual([true, 'closed']);
    expect([held(a.signal), held(b.signal)]).toEqual([
      { dependants: 0, listeners: 0 },
      { dependants: 0, listeners: 0 },
    ]);
    a.abort('later');
    expect(linked.signal.reason).toBe('closed');
    const late = linkedSignal([new AbortController().signal, a.signal]);
    expect([late.signal.aborted, late.signal.reason]).toEqual([true, 'later']);
  });
});
