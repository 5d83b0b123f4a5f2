import { describe, expect, it } from 'vitest';
import { type ReplayRow, replayColumns } from '../../../src/commands/webhooks/replay-rows.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { advanceClock, call, useSandbox } from '../../helpers/sandbox.js';
import { gate, startTarget } from '../../helpers/targets.js';
import { createWebhook, delivery, dlqEntries, interruptedRun, until } from '../../helpers/webhooks.js';

/**
 * A resumed `replay --dlq` restates no row as it was (oncall16 F2): a replay the stopped run
 * followed to a failed first attempt (`retrying`) is read as it is now. Delivered since by the
 * platform's own retry, it is no failure: no exit 7, no hint to replay a delivered event again.
 */
// The documented schedule: a failed first attempt is retried about 30 s later (the test moves the clock).
const sandbox = useSandbox({ webhooks: { timeScale: 1, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);

describe('replay --dlq resumed after its replay failed an attempt and was delivered since', () => {
  it.each([['--wait'], ['--no-wait']])(
    'resumed %s: the row says failed then (retrying), delivered now; no failure counted',
    async (waiting) => {
      const held = gate();
      let up = false;
      // The first replay's first attempt fails; the second replay's is held (the run is cut while
      // following it); from then on, the target is up.
      const target = await startTarget((n) =>
        n === 1 ? { status: 500 } : n === 2 ? { status: 200, until: held.until } : { status: up ? 200 : 500 },
      );
      const webhook = (await createWebhook(sandbox(), target.url, { max_attempts: 3 })).id;
      await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
        body: { webhook_id: webhook, count: 2 },
      });
      const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1'];
      // The held attempt is let go at the cut (interruptedRun), and answers 200 whatever `up` is.
      const cut = await interruptedRun(svc, argv, target, 2, {}, held.open);
      const [first] = ndjson(cut.stdout);
      expect([first!.status, first!.delivery_status]).toEqual(['failed', 'retrying']);
      const made = first!.new_delivery_id as string;
      up = true;
      // The platform's retry (due within 36 s) delivers it.
      await advanceClock(sandbox(), 40);
      await until(async () => (await delivery(sandbox(), webhook, made)).status === 'delivered');

      const resumed = await svc.run([...argv.filter((a) => a !== '--wait'), waiting, '--ndjson']);
      const rows = ndjson(resumed.stdout);
      const row = rows.find((r) => r.new_delivery_id === made)!;
      expect(row).toMatchObject({
        status: 'skipped',
        reason: 'journal',
        failed_then: 'retrying',
        delivery_status: 'delivered',
      });
      expect(row.error).toBeUndefined();
      // In a table: what was true then as then, what is true now as now.
      const detail = replayColumns(webhook, (w) => `svc ${w}`)(false).find((c) => c.header === 'detail')!;
      expect(detail.value(row as unknown as ReplayRow)).toBe(
        `done in an earlier run (replayed as ${made}); its delivery failed then (retrying): delivered now`,
      );
      expect(resumed.stderr).not.toContain('fix the target');
      expect(resumed.stderr).not.toContain('failed');
      if (waiting === '--wait') expect(resumed.code, resumed.stderr).toBe(0);
      else {
        // Not waiting, the one whose follow Ctrl-C cut is said not followed (exit 7), as before.
        expect(resumed.code, resumed.stderr).toBe(7);
        expect(JSON.parse(resumed.stderr.trimEnd().split('\n').at(-1)!).error.code).toBe('not_followed');
      }
      // Nothing was replayed again: the queue's two entries were replayed once each.
      expect((await dlqEntries(sandbox(), webhook, 'replayed')).map((e) => e.replay_count)).toEqual([1, 1]);
      await target.close();
    },
  );

  it('resumed --wait, its delivery dead-lettered since: failed now, and the hint says dead-lettered, not retrying', async () => {
    const held = gate();
    const target = await startTarget((n) => (n === 2 ? { status: 200, until: held.until } : { status: 500 }));
    const webhook = (await createWebhook(sandbox(), target.url, { max_attempts: 2 })).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: 2 },
    });
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1', '--ndjson'];
    const cut = await interruptedRun(svc, argv.slice(0, -1), target, 2, {}, held.open);
    const made = ndjson(cut.stdout)[0]!.new_delivery_id as string;
    await advanceClock(sandbox(), 40);
    await until(async () => (await delivery(sandbox(), webhook, made)).status === 'failed');

    const resumed = await svc.run(argv);
    expect(resumed.code, resumed.stderr).toBe(7);
    const row = ndjson(resumed.stdout).find((r) => r.new_delivery_id === made)!;
    expect(row).toMatchObject({ status: 'failed', failed_then: 'retrying', delivery_status: 'failed' });
    const { error } = JSON.parse(resumed.stderr.trimEnd().split('\n').at(-1)!);
    expect(error.hint).toBe(
      `the replays were made and their deliveries failed: 1 is dead-lettered: once the target is fixed, replay it with \`svc webhooks replay ${webhook} ${made}\``,
    );
    await target.close();
  });
});
