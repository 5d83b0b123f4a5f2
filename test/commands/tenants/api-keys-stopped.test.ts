import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { admin, TENANT } from '../../helpers/webhooks.js';

// Session 13 review (review-authz R9): a service-role key stopped because its issuer was wound
// down to an end date (its calls 401) was listed exactly like a working key. The API's key record
// says why it does not act (stopped_reason), and `svc tenants api-keys ls` shows its status.
const svc = useSandboxContext();

describe('an API key whose issuer was wound down', () => {
  it('is stopped_reason in the API and "stopped" with the reason in svc tenants api-keys ls', async () => {
    const sandbox = svc.sandbox();
    const granted = await admin(sandbox, 'POST', '/v1/users/usr_reviewer/roles', { role_id: 'tenant_admin' });
    expect(granted.status, granted.text).toBe(201);
    const issued = await call(sandbox, 'POST', `/v1/tenants/${TENANT}/api-keys`, {
      token: sandbox.issueToken('usr_reviewer', { expiresInSeconds: 86_400 }).token,
      tenant: TENANT,
      body: {
        kind: 'service_role',
        name: 'rvkey',
        justification: 'nightly sync job key',
        idempotency_key: 'sk2',
      },
    });
    expect(issued.status, issued.text).toBe(201);
    expect(issued.body.stopped_reason).toBe(null);
    const until = isoSeconds((await sandboxNow(sandbox)) + 3600_000);
    const wound = await admin(sandbox, 'PATCH', '/v1/users/usr_reviewer/roles/tenant_admin', {
      expires_at: until,
      justification: 'make it jit now',
    });
    expect(wound.status, wound.text).toBe(200);
    const refused = await call(sandbox, 'GET', '/v1/me', { token: issued.body.key, tenant: TENANT });
    const reason =
      'this API key acts only while usr_reviewer, who issued it, holds every permission of tenant_admin without an end date; ' +
      `they hold them only until ${until}: have someone who holds them without an end date issue a new key`;
    expect([refused.status, refused.body.error?.message]).toEqual([401, reason]);

    const listed = await admin(sandbox, 'GET', `/v1/tenants/${TENANT}/api-keys`);
    const item = listed.body.items.find((k: { id: string }) => k.id === issued.body.id);
    expect([item.revoked_at, item.stopped_reason]).toEqual([null, reason]);

    const piped = await svc.run(['tenants', 'api-keys', 'ls']);
    const row = piped.stdout.split('\n').find((line) => line.startsWith(`${issued.body.id}\t`));
    expect([piped.code, row?.split('\t').slice(2)]).toEqual([
      0,
      ['rvkey', `${issued.body.prefix}…`, issued.body.created_at, '', 'stopped', reason],
    ]);
    // A key that acts says so; a revoked one is revoked, whatever its issuer holds.
    const own = await admin(sandbox, 'POST', `/v1/tenants/${TENANT}/api-keys`, {
      kind: 'publishable',
      name: 'ui',
    });
    expect(own.status, own.text).toBe(201);
    const rows = (await svc.run(['tenants', 'api-keys', 'ls'])).stdout.split('\n');
    const ownRow = rows.find((line) => line.startsWith(`${own.body.id}\t`));
    expect(ownRow?.split('\t').slice(6)).toEqual(['active', '']);
    const revoked = await admin(sandbox, 'DELETE', `/v1/tenants/${TENANT}/api-keys/${issued.body.id}`);
    expect([revoked.status, revoked.body.stopped_reason]).toEqual([200, null]);
    const after = (await svc.run(['tenants', 'api-keys', 'ls'])).stdout
      .split('\n')
      .find((line) => line.startsWith(`${issued.body.id}\t`));
    expect(after?.split('\t').slice(6)).toEqual(['revoked', '']);
  });
});
