/**
 * A `replay --dlq --wait` run counts every replay it made by how its delivery went (exploratory
 * test s11, oncall11 findings 1 and 2): a resumed run showed the replays whose follow Ctrl-C had
 * cut as "failed now" yet counted them skipped (✓, exit 0), and a replay answered from this run's
 * own attempt whose answer was lost (Idempotent-Replayed) was a skipped "already replayed" row,
 * never followed: a run whose every delivery failed printed ✓ and exited 0.
 */

import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { type Answer, gate } from '../../helpers/targets.js';
import { admin, deadLetteredQueue, delivery, interruptedRun, until } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
/** The first replay POST of each delivery loses its answer (applied, then 503); its retry gets through. */
const lossy = useLossyProxy(sandbox, {
  lose: (method, path, seen) => method === 'POST' && path.endsWith('/replay') && seen === 1,
});

const queue = (answer: Answer, count: number) =>
  deadLetteredQueue(sandbox(), answer, count, { max_attempts: 1 });
const journals = () => (existsSync(svc.journals) ? readdirSync(svc.journals) : []);
/** How many reads of a delivery the sandbox has answered (200). */
const deliveryReads = async (): Promise<number> =>
  (await call(sandbox(), 'GET', '/_sandbox/stats')).body['GET /v1/webhooks/:id/deliveries/:deliveryId 200'] ??
  0;
const remedy = 'the target had an internal error: check its logs';

describe('a resumed replay --dlq --wait whose earlier replays failed after Ctrl-C cut their follow', () => {
  it('counts them failed: rows failed (done in an earlier run, failed now), exit 7 with the hint, no ✓', async () => {
    // The target holds both answers until the run is cut: the cut falls in their follows.
    const held = gate();
    const { webhook, target, entries } = await queue({ status: 500, until: held.until }, 2);
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait'];
    const first = await interruptedRun(svc, argv, target, 2, {}, held.open);
    const made = new Map(
      ndjson(first.stdout).map((r) => [r.delivery_id as string, r.new_delivery_id as string]),
    );
    expect(made.size).toBe(2);
    for (const id of made.values()) {
      await until(async () => (await delivery(sandbox(), webhook, id)).status === 'failed');
    }

    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(7);
    const rows = again.stdout.trimEnd().split('\n').sort();
    const expected = entries
      .map((e) => {
        const as = made.get(e.delivery_id)!;
        return `failed\t${e.delivery_id}\t${as}\t${e.event_type}\tfailed\tdone in an earlier run (replayed as ${as}); not followed then (interrupted): failed now: 5xx_server_error: the target answered 500 Internal Server Error; ${remedy}`;
      })
      .sort();
    expect(rows).toEqual(expected);
    const lines = again.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^resuming the run started at .+: 2 done, 0 to do \(journal .+\)$/);
    expect(again.stderr).not.toContain('✓');
    // The error line, with the hint after it: each failed replay named, in the order its follow ended.
    const error = lines.find((l) => l.startsWith('error: '))!;
    const named = /^error: 2 of 2 items failed: (dlv_\w+) /.exec(error)?.[1];
    const [a, b] = [named!, [...made.values()].find((x) => x !== named)!];
    expect(new Set([a, b])).toEqual(new Set(made.values()));
    expect(error).toBe(
      `error: 2 of 2 items failed: ${a} 5xx_server_error (${remedy}); ${b} 5xx_server_error (${remedy}); ` +
        `the replays were made and their deliveries failed: 2 are dead-lettered: once the target is fixed, replay exactly those with \`svc webhooks replay ${webhook} ${a} ${b}\`; --ndjson prints one result per item`,
    );
    // Nothing was replayed again, and nothing is left to resume.
    expect(target.received).toHaveLength(2);
    expect(journals()).toEqual([]);
    await target.close();
  });

  it('one still in flight when resumed: the resumed run follows it to its end', async () => {
    // The target holds its answer until the resumed run has read the delivery (pending).
    const held = gate();
    const { webhook, target, entries } = await queue({ status: 500, until: held.until }, 1);
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--ndjson'];
    const controller = new AbortController();
    const running = svc.run(argv, { signal: controller.signal });
    await until(() => target.received.length === 1);
    controller.abort();
    const first = await running;
    expect(first.code, first.stderr).toBe(130);
    const made = ndjson(first.stdout)[0]!.new_delivery_id as string;
    expect((await delivery(sandbox(), webhook, made)).status).toBe('pending');

    const readsBefore = await deliveryReads();
    const resumed = svc.run(argv);
    await until(async () => (await deliveryReads()) > readsBefore);
    held.open();
    const again = await resumed;
    expect(again.code, again.stderr).toBe(7);
    expect(ndjson(again.stdout)).toEqual([
      {
        status: 'failed',
        delivery_id: entries[0]!.delivery_id,
        dlq_entry_id: entries[0]!.id,
        new_delivery_id: made,
        event_type: entries[0]!.event_type,
        event_id: entries[0]!.event_id,
        reason: 'journal',
        follow: 'interrupted',
        delivery_status: 'failed',
        error: expect.objectContaining({ code: '5xx_server_error', remedy, http_status: 500 }),
      },
    ]);
    expect(target.received).toHaveLength(1);
    await target.close();
  });
});

describe('replay --dlq --wait whose replay answers were lost, then answered as replayed', () => {
  it('follows each as this run’s replay: failed rows, exit 7, not "already replayed"', async () => {
    const { webhook, target, entries } = await queue({ status: 500 }, 2);
    lossy().reset();
    const r = await svc.run(
      ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1', '--ndjson'],
      {
        env: { SVC_BASE_URL: lossy().url },
      },
    );
    expect(r.code, r.stderr).toBe(7);
    const rows = ndjson(r.stdout);
    const replays = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq?status=replayed&limit=200`))
      .body.items as Array<{ id: string; last_replay_delivery_id: string }>;
    const as = new Map(replays.map((e) => [e.id, e.last_replay_delivery_id]));
    expect(rows).toEqual(
      entries.map((e) => ({
        status: 'failed',
        delivery_id: e.delivery_id,
        dlq_entry_id: e.id,
        new_delivery_id: as.get(e.id),
        event_type: e.event_type,
        event_id: e.event_id,
        replayed: true,
        delivery_status: 'failed',
        error: expect.objectContaining({ code: '5xx_server_error', remedy, http_status: 500 }),
      })),
    );
    expect(r.stderr).not.toContain('had left the queue');
    expect(r.stderr).toContain(
      '2 of these were done by an earlier attempt whose answer was lost; the platform answered with what it did then\n',
    );
    const { error } = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!);
    expect(error.exit_code).toBe(7);
    // Each entry replayed once.
    expect(target.received).toHaveLength(2);
    await target.close();
  });

  it('one whose follow ends delivered counts as replayed and delivered (✓, exit 0)', async () => {
    const { webhook, target } = await queue({ status: 204 }, 2);
    lossy().reset();
    const r = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1'], {
      env: { SVC_BASE_URL: lossy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^2 of these were done by an earlier attempt whose answer was lost; the platform answered with what it did then\n✓ 2 replayed and delivered in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)\n$/,
    );
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t').slice(0, 1).concat(l.split('\t')[4]!)),
    ).toEqual([
      ['ok', 'delivered'],
      ['ok', 'delivered'],
    ]);
    expect(target.received).toHaveLength(2);
    await target.close();
  });
});
