import { rmSync } from 'node:fs';
/**
 * What `svc webhooks replay` says of what it did not do (exploratory test s8, findings-oncall 2, 3,
 * 6 and 10): a dry run promises no delivery; a resumed run's rows done by the earlier run say so,
 * not "sent again"; a follow cut by Ctrl-C is not a failure, and the resumed run says how the
 * replay went; an id given twice and an unknown webhook are named as what they are.
 */

import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../src/api/schemas/webhooks.js';
import { afterResuming, bulkRunner, fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { type Answer, gate, startTarget } from '../../helpers/targets.js';
import { admin, createWebhook, delivery, interruptedRun } from '../../helpers/webhooks.js';

// Attempts may take a while: the target of the Ctrl-C tests holds its answer until the run is cut.
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);

async function queue(answer: Answer, count: number) {
  const target = await startTarget(() => answer);
  const webhook = await createWebhook(sandbox(), target.url);
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
    body: { webhook_id: webhook.id, count },
  });
  const entries = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq?status=all&limit=200`)).body
    .items as DlqEntry[];
  return { webhook: webhook.id, target, entries };
}

describe('a dry run does not promise delivery', () => {
  it.each([[['--wait']], [['--no-wait']]])('%s: "would be replayed", not "and delivered"', async (wait) => {
    const { webhook, target } = await queue({ status: 503 }, 3);
    const said =
      'dry run: 3 would be replayed (whether they are delivered is known only when they are sent), 0 would be skipped, 0 would fail; nothing was changed\n';
    for (const mode of [[], ['--json'], ['--ndjson']]) {
      const r = await svc.run(['webhooks', 'replay', webhook, '--dlq', ...wait, '--dry-run', ...mode]);
      expect([r.code, r.stderr]).toEqual([0, said]);
      expect(r.stdout).not.toMatch(/deliver(ed)?\b(?!y)/);
    }
    expect(target.received).toHaveLength(0);
    await target.close();
  });
});

describe('resuming a named replay: rows the earlier run did', () => {
  it('say "done in an earlier run (replayed as …)", with no "sent again" and no warning; its dry run too', async () => {
    const { webhook, target, entries } = await queue({ status: 204 }, 1);
    const [e] = entries;
    const argv = ['webhooks', 'replay', webhook, e!.id, 'dlq_bogus', '--no-wait'];
    const first = await svc.run([...argv, '--json']);
    expect(first.code).toBe(7);
    const made = JSON.parse(first.stdout).find((row: { status: string }) => row.status === 'ok')
      .new_delivery_id as string;
    while ((await delivery(sandbox(), webhook, made)).status !== 'delivered') {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const received = target.received.length;

    for (const dry of [['--dry-run'], []]) {
      const r = await svc.run([...argv, ...dry, '--json'], { clock: fixedClock() });
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).not.toMatch(/warning|sent again|sends its event again/);
      const row = JSON.parse(r.stdout).find((x: { dlq_entry_id?: string }) => x.dlq_entry_id === e!.id);
      expect(row).toMatchObject({ reason: 'journal', new_delivery_id: made });
      expect(row.note).toBeUndefined();
      const text = await svc.run([...argv, ...dry], { clock: fixedClock() });
      expect(text.stderr).not.toMatch(/warning|sent again|sends its event again/);
      expect(text.stdout.split('\n')[0]).toBe(
        `${dry.length ? 'skip' : 'skipped'}\t${e!.delivery_id}\t${made}\t${e!.event_type}\t\tdone in an earlier run (replayed as ${made})`,
      );
    }
    expect(target.received).toHaveLength(received);
    const entry = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq/${e!.id}`)).body;
    expect(entry.replay_count).toBe(1);
    await target.close();
  });
});

describe('Ctrl-C while --wait follows a replay', () => {
  it('the row says the replay was made and its follow was interrupted (not failed); the resumed run says how it went', async () => {
    // Earlier tests' unfinished journals would be named at the end (attack25a F10): not this test's matter.
    rmSync(svc.journals, { recursive: true, force: true });
    // The target holds the first answer until the run is cut: the cut falls in its follow.
    const held = gate();
    const { webhook, target, entries } = await queue({ status: 204, until: held.until }, 2);
    const [e, f] = entries;
    const argv = ['webhooks', 'replay', webhook, e!.id, f!.id, '--wait', '--concurrency', '1'];
    const r = await interruptedRun(svc, argv, target, 1, {}, held.open);
    const rows = ndjson(r.stdout);
    expect(rows).toHaveLength(1);
    const made = rows[0].new_delivery_id as string;
    expect(made).toMatch(/^dlv_/);
    expect(rows[0]).toMatchObject({ status: 'ok', delivery_status: 'pending', follow: 'interrupted' });
    expect(rows[0].error).toBeUndefined();
    expect(r.stderr.split('\n')[0]).toMatch(
      /^1 replayed \(not followed to its delivery: interrupted\), 1 not started in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)$/,
    );
    expect(r.stderr).not.toMatch(/failed|within 60 s/);

    while ((await delivery(sandbox(), webhook, made)).status !== 'delivered') {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const again = await svc.run(argv, { clock: fixedClock() });
    expect(again.code, again.stderr).toBe(0);
    const [first, second] = again.stdout.split('\n');
    expect(first).toBe(
      `skipped\t${e!.delivery_id}\t${made}\t${e!.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (interrupted): delivered now`,
    );
    expect(second).toMatch(new RegExp(`^ok\t${f!.delivery_id}\tdlv_\\w+\t${f!.event_type}\tdelivered\t$`));
    expect(afterResuming(again.stderr)).toBe(
      '✓ 1 replayed and delivered, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (0.0 s)\n',
    );
    expect(target.received).toHaveLength(2);
    await target.close();
  });

  it('the text row of the interrupted follow', async () => {
    const held = gate();
    const { webhook, target, entries } = await queue({ status: 204, until: held.until }, 1);
    const [e] = entries;
    const controller = new AbortController();
    const running = svc.run(['webhooks', 'replay', webhook, e!.id, '--wait'], { signal: controller.signal });
    while (target.received.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    // Let the held answer go at the cut, not once the run has ended (interruptedRun says why).
    held.open();
    const r = await running;
    expect(r.code).toBe(130);
    const made = r.stdout.split('\t')[2] as string;
    // Every item was done, but the follow was cut: the journal stays (review s8: it was removed,
    // and the same command replayed the event again).
    expect(r.stderr.split('\n').slice(1).join('\n')).toBe(
      `error: interrupted while following 1 replay; it was made: run the same command again to see how it went (nothing is replayed twice), or \`svc webhooks deliveries ${webhook}\`\n`,
    );
    expect(r.stdout).toBe(
      `ok\t${e!.delivery_id}\t${made}\t${e!.event_type}\tpending\tinterrupted while following; the replay was made (${made}): see how it went with \`svc webhooks deliveries get ${webhook} ${made}\`\n`,
    );
    while ((await delivery(sandbox(), webhook, made)).status !== 'delivered') {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const again = await svc.run(['webhooks', 'replay', webhook, e!.id, '--wait']);
    expect([again.code, again.stdout]).toEqual([
      0,
      `skipped\t${e!.delivery_id}\t${made}\t${e!.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (interrupted): delivered now\n`,
    ]);
    expect(target.received).toHaveLength(1);
    await target.close();
  });
});

describe('ids named as what they are', () => {
  it('an entry id given twice is named; an unknown webhook points at `svc webhooks ls`', async () => {
    const twice = await svc.run(['webhooks', 'replay', 'wh_x', 'dlq_a', 'dlq_a']);
    expect([twice.code, twice.stderr]).toEqual([
      2,
      'error: dlq_a is given twice; give each delivery or entry once\n',
    ]);
    const nope = await svc.run(['webhooks', 'replay', 'wh_nope', 'dlv_x']);
    expect(nope.code).toBe(5);
    expect(nope.stderr).toMatch(
      /^error: webhook wh_nope not found .*; see `svc webhooks ls` for the webhooks of the tenant\n$/,
    );
  });
});
