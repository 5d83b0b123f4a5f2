/**
 * Discard runs of one principal over the same dead-letter entries at once (review13 R7): the
 * platform's discard answers alike whether it discarded the entry then or before, so a run whose
 * look saw the entry queued and whose discard came second was told 200 all the same, and both
 * runs claimed the discard ("✓ 36 discarded" + "✓ 18 discarded" for 40 entries). A run claims a
 * discard only when its answer is not a stored one: every run, named or --all, sends the key every
 * run shares for the entry as it was seen queued, so the run that comes second is answered from
 * the record, a skipped row (already_discarded).
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../../src/api/schemas/webhooks.js';
import { bulkRunner } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { useLossyProxy } from '../../../helpers/lossy-proxy.js';
import { useSandbox } from '../../../helpers/sandbox.js';
import { deadLetteredQueue, dlqEntries } from '../../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);

/** The other run, started just before run A's discard of `entry` reaches the platform (after A's look). */
let other:
  | { entry: DlqEntry; run: () => Promise<{ code: number; stdout: string; stderr: string }> }
  | undefined;
let otherRun: { code: number; stdout: string; stderr: string } | undefined;
/** The entry whose first discard reaches the sandbox and loses its answer (a 503 after the change). */
let losing: string | undefined;
const proxy = useLossyProxy(sandbox, {
  lose: (method, path, seen) =>
    method === 'DELETE' && losing !== undefined && path.endsWith(`/dlq/${losing}`) && seen === 1,
  before: async (method, path) => {
    const race = other;
    if (!race || method !== 'DELETE' || !path.endsWith(`/dlq/${race.entry.id}`)) return;
    other = undefined;
    otherRun = await race.run();
  },
});

const named = (webhook: string, entries: DlqEntry[]) => [webhook, ...entries.map((e) => e.id)];
const all = (webhook: string) => [webhook, '--all'];

describe('two discard runs of one principal over the same entries', () => {
  it.each([
    ['named', 'named', named, named],
    // The oldest entry only (x): the other is A's alone.
    ['named', '--all', named, (w: string) => [...all(w), '--limit', '1']],
    ['--all', 'named', (w: string) => all(w), named],
  ] as const)(
    'A %s, B %s discarding the entry after A looked at it: B claims it, A says skipped already_discarded',
    async (_a, _b, argvA, argvB) => {
      const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 2);
      const [x, y] = entries as [DlqEntry, DlqEntry];
      otherRun = undefined;
      other = {
        entry: x,
        // Another terminal: its own state directory (its own journal), the sandbox directly.
        run: () =>
          svc.run(['webhooks', 'dlq', 'discard', ...argvB(webhook, [x]), '--yes', '--ndjson'], {
            env: { SVC_BASE_URL: sandbox().url, SVC_STATE_DIR: join(svc.dir, `state-b-${webhook}`) },
          }),
      };
      const a = await svc.run(
        ['webhooks', 'dlq', 'discard', ...argvA(webhook, [x, y]), '--yes', '--ndjson', '--concurrency', '1'],
        { env: { SVC_BASE_URL: proxy().url } },
      );
      expect(other, 'the other run was started').toBeUndefined();
      const b = otherRun!;
      const discarded = new Map(
        (await dlqEntries(sandbox(), webhook, 'discarded')).map((e) => [e.id, e.discarded_at]),
      );
      expect([...discarded.keys()].sort()).toEqual([x.id, y.id].sort());
      const about = (e: DlqEntry) => ({
        dlq_entry_id: e.id,
        entry_id: e.id,
        delivery_id: e.delivery_id,
        event_type: e.event_type,
        event_id: e.event_id,
      });
      expect([b.code, b.stderr]).toEqual([
        0,
        expect.stringMatching(/^✓ 1 discarded in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)\n$/),
      ]);
      expect(ndjson(b.stdout)).toEqual([{ status: 'ok', ...about(x), discarded_at: discarded.get(x.id) }]);
      expect(a.code, a.stderr).toBe(0);
      expect(ndjson(a.stdout)).toEqual([
        { status: 'skipped', ...about(x), reason: 'already_discarded', discarded_at: discarded.get(x.id) },
        { status: 'ok', ...about(y), discarded_at: discarded.get(y.id) },
      ]);
      expect(a.stderr).toMatch(
        /^✓ 1 discarded, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)\n/,
      );
      await target.close();
    },
  );
});

describe('a named discard whose answer was lost', () => {
  it('retried with its key, the stored answer is not claimed: skipped, already_discarded, exit 0', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const [x] = entries as [DlqEntry];
    losing = x.id;
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, x.id, '--yes'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    losing = undefined;
    const [discarded] = await dlqEntries(sandbox(), webhook, 'discarded');
    expect(discarded!.id).toBe(x.id);
    // Its own attempt's answer, or a run's that came first with the shared key: nothing tells them apart.
    expect([r.code, r.stdout, r.stderr.replace(/ \([\d.]+ s\)\n/, ' (T)\n')]).toEqual([
      0,
      `skipped\t${x.id}\t${x.delivery_id}\t${x.event_type}\t${discarded!.discarded_at}\talready discarded, by another run or an earlier attempt\n`,
      '✓ 0 discarded, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
    ]);
    await target.close();
  });
});
