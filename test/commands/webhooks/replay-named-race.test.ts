/**
 * Named replays racing another engineer's run over the same dead-letter entries (oncall13 F2, F6):
 * the entry leaves the queue once. A named entry another run replayed after this run read it was
 * a `failed` row (409 dlq_entry_not_queued), exit 7, "fix them and run the same command again",
 * and that re-run sent the event again; a named delivery whose entry was queued was replayed as
 * the delivery, so both runs replayed it, the event delivered twice with no warning. Now each is
 * replayed as its entry, and the run that comes second has a skipped row saying so.
 */

import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../src/api/schemas/webhooks.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { admin, deadLetteredQueue, delivery, replayCounts, until } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
/** The entry another engineer replays (as the entry, as `replay --dlq` does) just before svc's replay of it reaches the platform. */
let first: { webhook: string; entry: DlqEntry; as?: string; discard?: boolean } | undefined;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: async (method, path) => {
    const race = first;
    if (
      !race ||
      method !== 'POST' ||
      path !== `/v1/webhooks/${race.webhook}/deliveries/${race.entry.delivery_id}/replay`
    )
      return;
    first = undefined;
    if (race.discard) {
      const d = await admin(sandbox(), 'DELETE', `/v1/webhooks/${race.webhook}/dlq/${race.entry.id}`);
      if (d.status !== 200) throw new Error(`the other engineer's discard: ${d.status} ${d.text}`);
      return;
    }
    const r = await admin(sandbox(), 'POST', path, { dlq_entry_id: race.entry.id });
    if (r.status !== 201) throw new Error(`the other engineer's replay: ${r.status} ${r.text}`);
    race.as = r.body.id;
  },
});

describe('a named replay loses the race for an entry to another run', () => {
  it.each([
    ['by its dead-letter entry id (dlq_…)', (e: DlqEntry) => e.id],
    ['by its delivery id (dlv_…), its entry queued', (e: DlqEntry) => e.delivery_id],
  ])(
    "named %s: a skipped row, already_replayed as the other run's delivery, exit 0; sent once",
    async (_, ref) => {
      const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 2);
      const [a, b] = entries as [DlqEntry, DlqEntry];
      const race: { webhook: string; entry: DlqEntry; as?: string } = { webhook, entry: a };
      first = race;
      const env = { SVC_BASE_URL: proxy().url };
      const argv = ['webhooks', 'replay', webhook, ref(a), ref(b), '--wait', '--concurrency', '1'];
      const r = await svc.run([...argv, '--ndjson'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(race.as).toMatch(/^dlv_/);
      const rows = ndjson(r.stdout);
      expect(rows).toHaveLength(2);
      expect(rows[0]).toEqual({
        status: 'skipped',
        delivery_id: a.delivery_id,
        ...(ref(a).startsWith('dlq_') ? { dlq_entry_id: a.id } : {}),
        event_type: null,
        reason: 'already_replayed',
        replayed_as: race.as,
      });
      expect(rows[1]).toMatchObject({
        status: 'ok',
        delivery_id: b.delivery_id,
        delivery_status: 'delivered',
      });
      expect(r.stderr).toMatch(
        /^✓ 1 replayed and delivered, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)\n$/,
      );
      await until(async () => (await delivery(sandbox(), webhook, race.as!)).status === 'delivered');
      // Each entry replayed once: the event of `a` by the other run only.
      expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 2 });
      expect(target.received).toHaveLength(2);
      first = undefined;
      await target.close();
    },
  );

  it('a named delivery whose queued entry another engineer discards meanwhile: skipped, already_discarded; not sent', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const [a] = entries as [DlqEntry];
    first = { webhook, entry: a, discard: true };
    const r = await svc.run(['webhooks', 'replay', webhook, a.delivery_id, '--wait', '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toEqual([
      {
        status: 'skipped',
        delivery_id: a.delivery_id,
        event_type: null,
        reason: 'already_discarded',
        discarded_at: expect.any(String),
      },
    ]);
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 0: 1 });
    expect(target.received).toHaveLength(0);
    await target.close();
  });

  it('the text row of an entry another run replayed first', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const [a] = entries as [DlqEntry];
    const race: { webhook: string; entry: DlqEntry; as?: string } = { webhook, entry: a };
    first = race;
    const r = await svc.run(['webhooks', 'replay', webhook, a.id, '--wait'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `skipped\t${a.delivery_id}\t\t\t\talready replayed as ${race.as}, by another run or an earlier attempt\n`,
    );
    expect(r.stderr).toMatch(
      /^✓ 0 replayed and delivered, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)\n$/,
    );
    expect(r.stderr).not.toMatch(/run the same command again|fix them/);
    await target.close();
  });
});
