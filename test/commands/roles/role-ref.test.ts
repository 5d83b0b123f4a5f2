import { describe, expect, it } from 'vitest';
import { call, useSandboxContext } from '../../helpers/sandbox.js';

// A user whose role grants role.assign but not role.read: the platform lets them grant and revoke,
// so svc does not first read the role when ROLE is a built-in name or a role id (the server checks
// it); a custom role's name, which svc must look up, is refused saying so and what to pass instead.
const svc = useSandboxContext({ users: 3 });
let keys = 0;

async function customRole(name: string, permissions: string[]): Promise<string> {
  const r = await svc.run([
    'roles',
    'create',
    '--name',
    name,
    ...permissions.flatMap((p) => ['--permission', p]),
    '--json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id as string;
}

describe('svc roles assign / revoke without role.read', () => {
  it('grants and revokes a built-in role and a role by id; a custom name needs role.read, said so (exit 4)', async () => {
    const granter = await customRole('granter', ['role.assign', 'exception.read']);
    const desk = await customRole('desk', ['exception.read']);
    const held = await call(svc.sandbox(), 'POST', '/v1/users/usr_analyst/roles', {
      token: svc.sandbox().adminToken,
      tenant: svc.env().SVC_TENANT!,
      body: { role_id: granter, idempotency_key: `role-ref-${++keys}` },
    });
    expect(held.status, held.text).toBe(201);
    const env = { SVC_TOKEN: svc.sandbox().issueToken('usr_analyst', { expiresInSeconds: 86_400 }).token };

    const builtin = await svc.run(
      ['roles', 'assign', 'usr_bulk_000001', 'tenant_viewer', '--expires-in', '1h', '--justification', 'j'],
      { env, now: Date.now() },
    );
    expect([builtin.code, builtin.stderr]).toEqual([
      0,
      expect.stringMatching(
        /^✓ granted tenant_viewer to usr_bulk_000001 in Acme Treasury \(acme-treasury\) until \S+Z \(audit trail aud_[0-9a-f]{24}\)\n$/,
      ),
    ]);
    const revoked = await svc.run(['roles', 'revoke', 'usr_bulk_000001', 'tenant_viewer', '--yes'], { env });
    expect([revoked.code, revoked.stderr]).toEqual([
      0,
      expect.stringMatching(
        /^✓ revoked tenant_viewer from usr_bulk_000001 in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \(audit trail aud_[0-9a-f]{24}\)\n$/,
      ),
    ]);

    const byName = await svc.run(
      ['roles', 'assign', 'usr_bulk_000002', 'desk', '--expires-in', '1h', '--justification', 'j'],
      { env, now: Date.now() },
    );
    expect([byName.code, byName.stdout, byName.stderr]).toEqual([
      4,
      '',
      `error: svc needs role.read to resolve the role name "desk"; pass the role's id (role_…) instead\n`,
    ]);
    const byId = await svc.run(
      ['roles', 'assign', 'usr_bulk_000002', desk, '--expires-in', '1h', '--justification', 'j'],
      { env, now: Date.now() },
    );
    expect([byId.code, byId.stderr]).toEqual([
      0,
      expect.stringMatching(
        /^✓ granted desk to usr_bulk_000002 in Acme Treasury \(acme-treasury\) until \S+Z \(audit trail aud_[0-9a-f]{24}\)\n$/,
      ),
    ]);
    const granted = await svc.run(
      ['roles', 'assign', 'usr_bulk_000003', desk, '--expires-in', '1h', '--justification', 'j', '--json'],
      { env, now: Date.now() },
    );
    expect(granted.code, granted.stderr).toBe(0);
    // A real grant has no already_assigned marker (crud.test.ts checks the one a role already held has).
    expect(JSON.parse(granted.stdout)).not.toHaveProperty('already_assigned');
    const revokedById = await svc.run(['roles', 'revoke', 'usr_bulk_000002', desk, '--yes'], { env });
    expect(revokedById.code, revokedById.stderr).toBe(0);
  });
});
