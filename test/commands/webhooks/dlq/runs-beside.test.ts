import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { bulkRunner } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { useLossyProxy } from '../../../helpers/lossy-proxy.js';
import { useSandbox } from '../../../helpers/sandbox.js';
import { useTempDir } from '../../../helpers/temp.js';
import { deadLetteredQueue, dlqEntries, pastRunStart, until } from '../../../helpers/webhooks.js';

/**
 * Two runs over one dead-letter queue at once (oncall16 F1): a run is the entries dead-lettered
 * before it started. Run B counts the queue (4 entries) and starts; before it lists the queue,
 * run A (another engineer, its own state) replays 2 of them to a target still down, and their
 * replays come back to the queue, dead-lettered after B started. B takes the 2 originals left,
 * never A's replays (each event is replayed once by the two runs together; discarded, nobody chose
 * to drop them), also from a server that ignores the listing's `until`.
 */
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);
const other = useTempDir('svc-other-engineer-');
afterAll(() => rmSync(other, { recursive: true, force: true }));

/** Run A, started by B's first page of the listing (the request after its count). */
let beforeListing: (() => Promise<void>) | undefined;
/** The server ignores `until` on the queue's listing. */
let ignoreUntil = false;
/** The run's listing of its entries (not its count, limit 1, nor its look at the seconds before it started, since). */
const listingPage = (method: string, path: string) =>
  method === 'GET' && /\/dlq\?/.test(path) && /limit=200/.test(path) && !/since=/.test(path);
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (!beforeListing || !listingPage(method, path)) return;
    const run = beforeListing;
    beforeListing = undefined;
    await run();
  },
  rewrite: (method, path) =>
    ignoreUntil && method === 'GET' ? path.replace(/([?&])until=[^&]*&?/, '$1').replace(/[?&]$/, '') : path,
});

async function besideAnotherRun(argv: (webhook: string) => string[], inItsSecond = false) {
  const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 500 }, 4, { max_attempts: 1 });
  let a: Awaited<ReturnType<typeof svc.run>> | undefined;
  beforeListing = async () => {
    // After B's start's second: what A's replays put back in the queue is newer than B. Or not
    // moved: often within that second, which B's `until` takes in whole; B listed the entries of
    // the seconds before it started by id (QueueSnapshot.#recent), and those are not among them.
    // (Without that, this case fails only when A's replays fall within B's start second.)
    if (!inItsSecond) await pastRunStart(sandbox());
    a = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--limit', '2', '--no-wait', '--ndjson'], {
      env: { SVC_STATE_DIR: other },
    });
    // A's 2 replays failed (one attempt) and are queued again: 2 originals left + 2 newer.
    await until(async () => (await dlqEntries(sandbox(), webhook, 'queued')).length === 4);
  };
  const b = await svc.run([...argv(webhook), '--concurrency', '1', '--ndjson'], {
    env: { SVC_BASE_URL: proxy().url },
  });
  expect(beforeListing, 'run A ran before B listed the queue').toBeUndefined();
  expect(a!.code, a!.stderr).toBe(0);
  const aRows = ndjson(a!.stdout);
  expect(aRows.map((r) => r.status)).toEqual(['ok', 'ok']);
  const left = entries.filter((e) => !aRows.some((r) => r.dlq_entry_id === e.id));
  return { webhook, entries, a: aRows, left, b };
}

describe('two runs over one dead-letter queue at once: each is the entries dead-lettered before it started', () => {
  it.each([
    ['a server that filters on until', false, false],
    ['a server that ignores until', true, false],
    ["the other run's replays back in the queue within the second B started", false, true],
  ])(
    'replay --dlq beside replay --dlq (%s): no event is replayed twice',
    async (_server, ignores, inItsSecond) => {
      ignoreUntil = ignores;
      const { webhook, a, left, b } = await besideAnotherRun(
        (w) => ['webhooks', 'replay', w, '--dlq', '--no-wait'],
        inItsSecond,
      );
      ignoreUntil = false;
      expect(b.code, b.stderr).toBe(0);
      const bRows = ndjson(b.stdout);
      expect(bRows.map((r) => [r.status, r.dlq_entry_id])).toEqual(left.map((e) => ['ok', e.id]));
      const events = [...a, ...bRows].map((r) => r.event_id);
      expect(new Set(events).size).toBe(4);
      expect(b.stderr).toContain('✓ 2 replayed in ');
      // Every replay of the two runs failed again and is queued (a new run's): none was replayed.
      await until(async () => (await dlqEntries(sandbox(), webhook, 'queued')).length === 4);
      const queued = await dlqEntries(sandbox(), webhook, 'queued');
      expect(queued.map((e) => e.delivery_id).sort()).toEqual(
        [...a, ...bRows].map((r) => r.new_delivery_id).sort(),
      );
    },
  );

  it('dlq discard --all beside replay --dlq: only the entries dead-lettered before it started are discarded', async () => {
    const { webhook, a, left, b } = await besideAnotherRun((w) => [
      'webhooks',
      'dlq',
      'discard',
      w,
      '--all',
      '--yes',
    ]);
    expect(b.code, b.stderr).toBe(0);
    const bRows = ndjson(b.stdout);
    expect(bRows.map((r) => [r.status, r.dlq_entry_id ?? r.id])).toEqual(left.map((e) => ['ok', e.id]));
    expect(b.stderr).toContain('✓ 2 discarded in ');
    const queued = await dlqEntries(sandbox(), webhook, 'queued');
    expect(queued.map((e) => e.delivery_id).sort()).toEqual(a.map((r) => r.new_delivery_id).sort());
  });
});
