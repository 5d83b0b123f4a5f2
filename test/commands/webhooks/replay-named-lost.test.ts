/**
 * A named replay whose answer was lost, settled by the same command (review R3, R4). A delivery
 * named by its dlv_ id whose entry was queued is replayed as that entry; its retry, reading the
 * entry replayed (by the lost attempt), sent a plain replay under the same key: 409
 * idempotency_key_reused (exit 6), and the run after that replayed the event again (two deliveries).
 * The settling run also warned "replaying sends its event again" and said "already delivered by
 * <its own new delivery>; sent again" of the platform's stored answer, when nothing was sent.
 */

import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../src/api/schemas/webhooks.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { deadLetteredQueue, delivery, until } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
/** While set: every replay reaches the platform and its answer is lost (the connection closed). */
let losing = false;
const proxy = useLossyProxy(sandbox, {
  lose: (method, path) => (losing && method === 'POST' && path.endsWith('/replay') ? 'drop' : false),
});

/** The first run of `argv`, every replay's answer lost: the outcome is unknown, nothing journaled done. */
async function lostRun(argv: string[]) {
  losing = true;
  const r = await svc.run(argv, { env: { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' } });
  losing = false;
  expect(r.code, r.stderr).not.toBe(0);
  expect(r.stderr).toContain('so the outcome is unknown');
  return r;
}

describe('a named replay whose answer was lost: the same command settles it, sending nothing again', () => {
  it.each([
    ['one delivery by its dlv_ id (its entry queued)', 1],
    ['two deliveries by their dlv_ ids', 2],
  ])('%s: the retry is answered from the record, ok replayed, delivered once', async (_, count) => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, count);
    const argv = ['webhooks', 'replay', webhook, ...entries.map((e) => e.delivery_id), '--wait'];
    await lostRun(argv);
    await until(() => target.received.length >= count);

    const r = await svc.run([...argv, '--ndjson'], { env: { SVC_BASE_URL: proxy().url } });
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout);
    expect(rows).toHaveLength(count);
    for (const [i, row] of rows.entries()) {
      expect(row).toMatchObject({ status: 'ok', delivery_id: entries[i]!.delivery_id, replayed: true });
      expect(row).not.toHaveProperty('note');
    }
    // Each event delivered once: the settling run sent nothing (it followed the lost attempts' deliveries).
    expect(target.received).toHaveLength(count);
    await target.close();
  });

  it('by its dlq_ id, in text: the warning says it may be the lost attempt\'s replay; no "sent again" on the row', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const [a] = entries as [DlqEntry];
    const argv = ['webhooks', 'replay', webhook, a.id, '--wait'];
    await lostRun(argv);
    await until(() => target.received.length >= 1);
    const made = (await delivery(sandbox(), webhook, a.delivery_id)).recovered_by as string;
    expect(made).toMatch(/^dlv_/);

    const r = await svc.run(argv, { env: { SVC_BASE_URL: proxy().url } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`ok\t${a.delivery_id}\t${made}\t${a.event_type}\tdelivered\t\n`);
    // Read before it is sent, the entry's replay may be the lost attempt's: the warning says so.
    expect(r.stderr.split('\n')[0]).toBe(
      `warning: ${a.id} was already delivered (by ${made}): unless by an earlier attempt of this run whose answer was lost (the platform then answers with that replay), replaying sends its event again`,
    );
    expect(r.stderr).not.toMatch(/sent again/);
    expect(target.received).toHaveLength(1);
    await target.close();
  });
});
