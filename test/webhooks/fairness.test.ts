import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { startTarget } from '../helpers/targets.js';
import { createWebhook, emit } from '../helpers/webhooks.js';

// 8 attempts in flight at most; an attempt times out after a minute, so a delivery that had to
// wait for a hanging attempt to give up would take at least that long.
const sandbox = useSandbox({ webhooks: { concurrency: 8, requestTimeoutMs: 60_000 } });
const LABS = tenantId('acme-labs');

async function webhookIn(tenant: string, url: string): Promise<string> {
  const r = await call(sandbox(), 'POST', '/v1/webhooks', {
    token: sandbox().adminToken,
    tenant,
    body: { url, event_types: ['exception.sla.breached'], idempotency_key: `fair-${tenant}-${url}` },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

/** Waits until `done()` holds; gives up after `ms` (far less than one attempt timeout). */
async function within(ms: number, done: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (done()) return true;
    await sleep(10);
  }
  return done();
}

describe('fair delivery: one hanging target does not hold up the others', () => {
  it('delivers to healthy webhooks, in its tenant and in another, while 160 attempts hang', async () => {
    const hanging = await startTarget(() => 'hang');
    const healthy = await startTarget(() => ({ status: 204 }));
    const neighbour = await startTarget(() => ({ status: 204 }));
    const stuck = await createWebhook(sandbox(), hanging.url);
    const sameTenant = await createWebhook(sandbox(), neighbour.url);
    const otherTenant = await webhookIn(LABS, healthy.url);

    await emit(sandbox(), stuck.id, 160);
    expect(await within(5_000, () => hanging.received.length > 0)).toBe(true);
    await emit(sandbox(), otherTenant, 3);
    await emit(sandbox(), sameTenant.id, 3);
    expect(await within(5_000, () => healthy.received.length === 3 && neighbour.received.length === 3)).toBe(
      true,
    );

    // No hanging attempt has finished: nothing had to wait for a timeout, and the hanging
    // webhook holds no more than its share of the 8 slots.
    const engine = (await call(sandbox(), 'GET', '/_sandbox/webhooks/engine')).body;
    expect(engine.stats.attempts).toBe(6);
    expect(hanging.received.length).toBe(engine.settings.per_webhook_concurrency);
    expect(engine.settings.per_webhook_concurrency).toBeLessThan(engine.settings.concurrency);
  });
});
