import { describe, expect, it } from 'vitest';
import type { Role } from '../../src/api/schemas/roles.js';
import type { LiveTenant } from '../../src/ascode/live.js';
import { refuseBeyondHolds } from '../../src/ascode/lockout.js';
import type { PlanChange } from '../../src/ascode/plan.js';

// refuseBeyondHolds on a state built by hand (audit13 F9): a caller whose live roles lack
// webhook.manage / oauth_client.manage has each webhook and OAuth client change planned refused
// (insufficient_role); one who holds them has none. The OAuth client case cannot be reached through
// svc plan (reading clients takes oauth_client.manage), so it is checked here.
const role = (name: string, permissions: string[]): Role =>
  ({ id: `role_${name}`, name, description: '', kind: 'custom', scope: 'tenant', permissions }) as Role;

function tenant(permissions: string[]): LiveTenant {
  return {
    tenant: { id: 't1', slug: 'acme', display_name: 'Acme', role: 'tenant_admin' },
    roles: new Map([['held', role('held', permissions)]]),
    grants: new Map([
      [
        'u1 held',
        { user: 'u1', roleId: 'role_held', roleName: 'held', expiresAt: null, justification: null },
      ],
    ]),
    webhooks: [],
    clients: [],
    undescribed: [],
  };
}

const change = (kind: 'webhook' | 'oauth_client', name: string): PlanChange =>
  ({
    kind,
    action: 'create',
    verb: 'create',
    name,
    id: null,
    line: 1,
    prune: false,
    fields: [],
    before: null,
    needs: [],
  }) as unknown as PlanChange;

describe('webhook and OAuth client changes by a caller who may not manage them', () => {
  it.each([
    ['webhook', 'https://h.example/x', 'changing webhooks needs permission webhook.manage'],
    ['oauth_client', 'portal', 'changing OAuth clients needs permission oauth_client.manage'],
  ] as const)('%s: planned refused (insufficient_role)', (kind, name, needs) => {
    const changes = [change(kind, name)];
    expect(
      refuseBeyondHolds(tenant(['role.read', 'webhook.read']), changes, { id: 'u1', type: 'user' }),
    ).toBe(1);
    expect(changes[0]!.refused).toBe(
      `the platform refuses it (insufficient_role): ${needs} in acme, which your live roles there do not grant; ask an administrator of acme`,
    );
  });

  it('a caller who holds oauth_client.manage: the client change is not refused', () => {
    const changes = [change('oauth_client', 'portal')];
    expect(refuseBeyondHolds(tenant(['oauth_client.manage']), changes, { id: 'u1', type: 'user' })).toBe(0);
    expect(changes[0]!.refused).toBeUndefined();
  });
});
