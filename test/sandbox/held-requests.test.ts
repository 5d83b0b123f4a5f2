import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { call, useSandbox } from '../helpers/sandbox.js';

/**
 * The sandbox's hold (FaultInjector.hold), the in-process tests' way to keep a request in flight
 * exactly as long as they need: it holds only the request it picks, and only until released.
 */
const sandbox = useSandbox();
const tenant = tenantId('acme-treasury');
const titled = (title: string) =>
  sandbox()
    .state.records.list(tenant, 'exceptions')
    .filter((e) => e.record.title === title);
const create = (title: string) =>
  call(sandbox(), 'POST', '/v1/exceptions', {
    token: sandbox().adminToken,
    tenant,
    body: { title, idempotency_key: `held-${title}` },
  });

describe('a held request', () => {
  it('waits before its handler until released; other requests and the controls go on meanwhile', async () => {
    const held = sandbox().faults.hold((method) => method === 'POST');
    try {
      const creating = create('held-1');
      expect(await held.arrived).toMatchObject({ method: 'POST', url: '/v1/exceptions' });
      const read = await call(sandbox(), 'GET', '/v1/exceptions', { token: sandbox().adminToken, tenant });
      expect(read.status).toBe(200);
      expect((await call(sandbox(), 'GET', '/_sandbox/health')).status).toBe(200);
      // The hold is spent: the next POST goes through.
      expect((await create('held-2')).status).toBe(201);
      expect(titled('held-1')).toHaveLength(0);
      held.release();
      expect((await creating).status).toBe(201);
      expect(titled('held-1')).toHaveLength(1);
    } finally {
      held.release();
    }
  });

  it('is let go when the sandbox closes: the request is answered, never left pending', async () => {
    const own = await startSandbox({ port: 0 });
    const held = own.faults.hold();
    const creating = call(own, 'POST', '/v1/exceptions', {
      token: own.adminToken,
      tenant,
      body: { title: 'left', idempotency_key: 'left-1' },
    });
    await held.arrived;
    await own.close();
    expect((await creating).status).toBe(201);
  });
});
