import { describe, expect, it } from 'vitest';
import { adminGrant, call, newApiKey, useSandboxContext } from '../../helpers/sandbox.js';

// Two admins revoke one key at once (attack28b F6): svc's DELETE is held by the sandbox while the
// other admin (usr_lead, a tenant_admin) revokes the key, then let go. The platform answers a
// revoke of a revoked key as a revocation; its revoked_by names the other admin, so svc says
// already_revoked, not revoked. The order is forced by the hold, not timing.
const svc = useSandboxContext({ users: 3 });

describe('svc tenants api-keys revoke of a key another admin revokes meanwhile', () => {
  it('says already_revoked, naming who', async () => {
    const tenant = svc.env().SVC_TENANT!;
    await adminGrant(svc.sandbox(), tenant, 'usr_lead', 'tenant_admin');
    const lead = svc.sandbox().issueToken('usr_lead', { expiresInSeconds: 86_400 }).token;
    const key = await newApiKey(svc.sandbox(), 'meanwhile');
    const held = svc
      .sandbox()
      .faults.hold((method, url) => method === 'DELETE' && url.endsWith(`/api-keys/${key.id}`));
    try {
      const revoking = svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes', '--json']);
      await held.arrived;
      const other = await call(svc.sandbox(), 'DELETE', `/v1/tenants/${tenant}/api-keys/${key.id}`, {
        token: lead,
        tenant,
      });
      expect(other.status, other.text).toBe(200);
      held.release();
      const r = await revoking;
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        outcome: 'already_revoked',
        api_key: { id: key.id, revoked_by: 'usr_lead' },
      });
    } finally {
      held.release();
    }
  });

  it('its own revocation is revoked', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'alone');
    const r = await svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'revoked', api_key: { id: key.id } });
  });
});
