/**
 * Attack class "faults with counted side effects": about 38% of requests answered 503 or
 * dropped, before or after the change was made (the answer lost); the same command is run again
 * until it exits 0, and every row and every queue entry must be applied exactly once, counted on
 * the sandbox. In-process: the faults are the sandbox's, nothing here needs a process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { virtualClock } from '../helpers/context.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { createWebhook, replayCounts } from '../helpers/webhooks.js';
import { cases } from './lib.js';

const GRANTS = cases(300, 1200);
const REPLAYS = cases(150, 400);
const sandbox = useSandbox({ users: GRANTS });
const svc = bulkRunner(sandbox);
const FAULTS = { fail_rate: 0.3, drop_rate: 0.08, phase: 'both', retry_after: '0', seed: 1111 };

afterEach(async () => {
  await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0, drop_rate: 0 } });
});

/**
 * Runs the same command until it exits 0 (a resumed run), at most `tries` times. svc's waits
 * between retries take no time (virtualClock): the sandbox's faults are drawn per request, not
 * per second, so waiting for them changes nothing but the test's length.
 */
async function untilDone(argv: string[], tries: number): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < tries; i++) {
    const r = await svc.run(argv, {
      env: { SVC_MAX_RETRIES: '6', SVC_TIMEOUT: '5' },
      clock: virtualClock(Date.now()),
    });
    codes.push(r.code);
    if (r.code === 0) break;
  }
  return codes;
}

describe('attack: faults with counted side effects', () => {
  it(`${GRANTS.toLocaleString('en')} grants under 38% injected 503s and dropped connections: each row granted exactly once`, async () => {
    const id = await customRole(sandbox(), 'faulty');
    const rows = Array.from({ length: GRANTS }, (_, i) => `${bulkUser(i + 1)},faulty,7d,faults`);
    const path = svc.file('faults.csv', `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: FAULTS });
    const codes = await untilDone(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '16'], 4);
    expect(codes.at(-1)).toBe(0);
    const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
    // The faults really happened: at least a sixth of the grants were answered 503 at least once.
    expect(stats['POST /v1/users/:id/roles 503']).toBeGreaterThan(GRANTS / 6);
    expect(await assignments(sandbox(), id)).toEqual({
      total: GRANTS,
      active: GRANTS,
      users: GRANTS,
      duplicates: 0,
    });
  }, 120_000);

  it(`${REPLAYS} replays from the dead-letter queue under the same faults: each entry replayed exactly once`, async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: REPLAYS },
    });
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: FAULTS });
    const codes = await untilDone(['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--no-wait'], 4);
    expect(codes.at(-1)).toBe(0);
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0, drop_rate: 0 } });
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: REPLAYS });
  }, 120_000);
});
