// An item taken from the source but not yet started (its worker waits to write the results so far:
// beforeStart, a slow stdout) is in flight for RunOrder.settled: a queue source that lists again
// (webhooks replay --dlq) waits for it to be sent and done, and a later phase's item (svc apply: a
// grant after its role's creation) does not start before it has finished. It counted only once
// started, so both went ahead while it waited (session 23's closing note: "settled() counts only
// started items"). Order by a gate the source opens a turn of the event loop later (setImmediate:
// after every promise job then due), and a turn in each item's work: no timer decides anything.
import { describe, expect, it } from 'vitest';
import type { BulkItem } from '../../src/bulk/item.js';
import { RunOrder } from '../../src/bulk/order.js';
import { runItems } from '../../src/bulk/runner.js';

const never = new AbortController().signal;
const now = () => Date.parse('2026-01-15T09:30:00Z');
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A run of 2 workers whose first item waits at beforeStart until `open()` is called. */
function gated() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let calls = 0;
  const events: string[] = [];
  return {
    open,
    events,
    beforeStart: async () => {
      if (calls++ === 0) await gate;
    },
    work: async (item: BulkItem<number>) => {
      events.push(`start ${item.key}`);
      await turn();
      events.push(`end ${item.key}`);
      return {};
    },
  };
}

describe('an item taken from the source, not yet started', () => {
  it('is waited for by a source that lists again once the items settle (a DLQ replay)', async () => {
    const run = gated();
    const order = new RunOrder();
    let seenAtRelist: string[] | undefined;
    async function* source(): AsyncGenerator<BulkItem<number>> {
      yield { key: 'e1', data: 1 };
      // The listing ended short: list again once nothing in flight moves the queue. The first
      // item's stdout drains a turn later.
      setImmediate(run.open);
      await order.settled();
      seenAtRelist = [...run.events];
    }
    const summary = await runItems({
      items: source(),
      order,
      concurrency: 2,
      runId: 'run',
      stop: never,
      now,
      beforeStart: run.beforeStart,
      work: run.work,
    });
    expect(summary).toMatchObject({ total: 1, ok: 1 });
    // Was []: listed again while e1 was still to be sent.
    expect(seenAtRelist).toEqual(['start e1', 'end e1']);
  });

  it('holds back a later phase until it has finished (svc apply: a role before its grants)', async () => {
    const run = gated();
    async function* source(): AsyncGenerator<BulkItem<number>> {
      yield { key: 'role', data: 1, phase: 1 };
      setImmediate(run.open);
      yield { key: 'grant', data: 2, phase: 2 };
    }
    const summary = await runItems({
      items: source(),
      concurrency: 2,
      runId: 'run',
      stop: never,
      now,
      beforeStart: run.beforeStart,
      work: run.work,
    });
    expect(summary).toMatchObject({ total: 2, ok: 2 });
    // Was start role, start grant, …: the grant sent beside the role's creation.
    expect(run.events).toEqual(['start role', 'end role', 'start grant', 'end grant']);
  });

  it('left by a stop while it waits: the source’s wait ends, and the run is cut', async () => {
    const run = gated();
    const ctrlC = new AbortController();
    const order = new RunOrder();
    let relisted = false;
    async function* source(): AsyncGenerator<BulkItem<number>> {
      yield { key: 'e1', data: 1 };
      ctrlC.abort();
      setImmediate(run.open);
      await order.settled();
      relisted = true;
    }
    const summary = await runItems({
      items: source(),
      order,
      concurrency: 2,
      runId: 'run',
      stop: ctrlC.signal,
      now,
      beforeStart: run.beforeStart,
      work: run.work,
    });
    expect(run.events).toEqual([]);
    expect([summary.stopped, summary.total, relisted]).toEqual([true, 0, true]);
  });

  it('left by its worker’s beforeStart throwing (stdout gone before it started): the source’s wait ends too', async () => {
    const order = new RunOrder();
    let relisted = false;
    async function* source(): AsyncGenerator<BulkItem<number>> {
      yield { key: 'e1', data: 1 };
      await order.settled();
      relisted = true;
    }
    const started: string[] = [];
    await expect(
      runItems({
        items: source(),
        order,
        concurrency: 2,
        runId: 'run',
        stop: never,
        now,
        beforeStart: async () => {
          await turn();
          throw new Error('stdout closed');
        },
        work: async (item) => {
          started.push(item.key);
          return {};
        },
      }),
    ).rejects.toThrow('stdout closed');
    // The release runs before the throw goes on, and the source's wait ends in the promise jobs
    // after it: a turn of the event loop holds them all (no timer). Without it, e1 stayed taken
    // and a source (or a phase's barrier) waiting for it waited for ever.
    await turn();
    expect([started, relisted]).toEqual([[], true]);
  });
});
