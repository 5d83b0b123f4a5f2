/**
 * Ctrl-C while `replay --dlq --wait` reads a replay's delivery to follow it (exploratory test s12,
 * longrun12 finding 1): the cut read threw "interrupted; the request was cancelled" out of the
 * row, which became `failed` though the platform had made the replay (its entry `replayed`), and
 * the summary counted it failed. The replay was made: its row is ok with follow "interrupted",
 * journaled, and the resumed run says how it went without replaying it again.
 */

import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { gate } from '../../helpers/targets.js';
import { admin, deadLetteredQueue, delivery, replayCounts, until } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
let ctrlC: AbortController | undefined;
/** Ctrl-C exactly while svc's first read of a replay's delivery is on its way (the in-process run aborts at once). */
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (method === 'GET' && /\/deliveries\/dlv_\w+$/.test(path) && ctrlC && !ctrlC.signal.aborted)
      ctrlC.abort();
  },
});

describe('Ctrl-C cuts the read that follows a replay of replay --dlq --wait', () => {
  it('the row is ok, follow interrupted, never failed; the summary says so; the resumed run settles it', async () => {
    // The target holds the first answer until the run is cut: its delivery is pending when read.
    const held = gate();
    const { webhook, target, entries } = await deadLetteredQueue(
      sandbox(),
      { status: 204, until: held.until },
      2,
    );
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1'];
    const env = { SVC_BASE_URL: proxy().url };
    ctrlC = new AbortController();
    // The held answer goes at the cut, not once the run has ended: under load that end can take
    // longer than the sandbox's attempt timeout (10 s), and the delivery failed instead.
    ctrlC.signal.addEventListener('abort', held.open);
    const cut = await svc.run([...argv, '--ndjson'], { signal: ctrlC.signal, env });
    expect(ctrlC.signal.aborted).toBe(true);
    expect(cut.code, cut.stderr).toBe(130);
    const rows = ndjson(cut.stdout);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({ status: 'ok', follow: 'interrupted', delivery_status: 'pending' });
    expect(row!.error).toBeUndefined();
    const made = row!.new_delivery_id as string;
    expect(made).toMatch(/^dlv_/);
    expect(cut.stderr.split('\n')[0]).toMatch(
      /^1 replayed \(not followed to its delivery: interrupted\), 1 not started in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)$/,
    );
    expect(cut.stderr).not.toMatch(/failed|cancelled/);
    const entry = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq/${row!.dlq_entry_id}`)).body;
    expect(entry.status).toBe('replayed');

    await until(async () => (await delivery(sandbox(), webhook, made)).status === 'delivered');
    const again = await svc.run(argv, { env });
    expect(again.code, again.stderr).toBe(0);
    const first = entries.find((e) => e.id === row!.dlq_entry_id)!;
    expect(again.stdout).toContain(
      `skipped\t${first.delivery_id}\t${made}\t${first.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (interrupted): delivered now\n`,
    );
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 2 });
    await target.close();
  });
});
