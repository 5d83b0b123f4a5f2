import { describe, expect, it } from 'vitest';
import { ACME, call, useSandbox } from '../helpers/sandbox.js';

/**
 * A write whose credential ends while the platform works on it (attack28b F7): an API key revoked
 * while its request is held acts no more once the request reaches its handler (401), as a role's
 * permissions are checked again there. The order is forced by the sandbox's hold, not timing.
 */
const sandbox = useSandbox();

describe('a write whose API key is revoked while it is in flight', () => {
  it('is refused 401 where it acts, and makes nothing', async () => {
    const made = await call(sandbox(), 'POST', `/v1/tenants/${ACME}/api-keys`, {
      token: sandbox().adminToken,
      tenant: ACME,
      body: {
        kind: 'service_role',
        name: 'held-job',
        justification: 'nightly job',
        idempotency_key: 'recheck-key-1',
      },
    });
    expect(made.status, made.text).toBe(201);
    const { id, key } = made.body as { id: string; key: string };
    const titled = () =>
      sandbox()
        .state.records.list(ACME, 'exceptions')
        .filter((e) => e.record.title === 'after-revoke');
    const held = sandbox().faults.hold((method, url) => method === 'POST' && url === '/v1/exceptions');
    try {
      const creating = call(sandbox(), 'POST', '/v1/exceptions', {
        token: key,
        tenant: ACME,
        body: { title: 'after-revoke', idempotency_key: 'recheck-1' },
      });
      await held.arrived;
      const revoked = await call(sandbox(), 'DELETE', `/v1/tenants/${ACME}/api-keys/${id}`, {
        token: sandbox().adminToken,
        tenant: ACME,
      });
      expect(revoked.status, revoked.text).toBeLessThan(300);
      held.release();
      const answer = await creating;
      expect([answer.status, answer.body.error?.code]).toEqual([401, 'invalid_token']);
      expect(titled()).toHaveLength(0);
    } finally {
      held.release();
    }
  });
});
