// Attack class "faults with counted side effects" (issue 11), for the attack suite: 30–40% of
// requests answered 503 or dropped, before or after the change was made; every row and every
// queue entry must be applied exactly once, counted on the sandbox.
import { afterEach, describe, expect, it } from 'vitest';
import { assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { admin, createWebhook } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 2000 });
const svc = bulkRunner(sandbox);
const FAULTS = { fail_rate: 0.3, drop_rate: 0.08, phase: 'both', retry_after: '0', seed: 1111 };

afterEach(async () => {
  await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0, drop_rate: 0 } });
});

/** Runs the same command until it exits 0 (a resumed run), at most `tries` times. */
async function untilDone(argv: string[], tries: number): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < tries; i++) {
    const r = await svc.run(argv, { env: { SVC_MAX_RETRIES: '6', SVC_TIMEOUT: '5' } });
    codes.push(r.code);
    if (r.code === 0) break;
  }
  return codes;
}

describe('attack: faults with counted side effects', () => {
  it('1,200 grants under 38% injected 503s and dropped connections: each row granted exactly once', async () => {
    const id = await customRole(sandbox(), 'faulty');
    const rows = Array.from({ length: 1200 }, (_, i) => `${bulkUser(i + 1)},faulty,7d,faults`);
    const path = svc.file('faults.csv', `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: FAULTS });
    const codes = await untilDone(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '16'], 4);
    expect(codes.at(-1)).toBe(0);
    const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
    expect(stats['POST /v1/users/:id/roles 503']).toBeGreaterThan(200);
    expect(await assignments(sandbox(), id)).toEqual({
      total: 1200,
      active: 1200,
      users: 1200,
      duplicates: 0,
    });
  }, 120_000);

  it('400 replays from the dead-letter queue under the same faults: each entry replayed exactly once', async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: 400 },
    });
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: FAULTS });
    const codes = await untilDone(['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--no-wait'], 4);
    expect(codes.at(-1)).toBe(0);
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0, drop_rate: 0 } });
    const counts = new Map<number, number>();
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ replay_count: number }>; next_cursor: string | null } = (
        await admin(
          sandbox(),
          'GET',
          `/v1/webhooks/${webhook}/dlq?status=all&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        )
      ).body;
      for (const e of page.items) counts.set(e.replay_count, (counts.get(e.replay_count) ?? 0) + 1);
      cursor = page.next_cursor;
    } while (cursor);
    expect(Object.fromEntries(counts)).toEqual({ 1: 400 });
  }, 120_000);
});
