import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';

// s15 attack F5, F6: `svc roles update` says the platform's refusals of a role manager renaming or
// re-describing a role carrying permissions they lack, and of widening a role they hold (a grant
// to themselves), in its words, exit 4, nothing changed.
const svc = useSandboxContext({ users: 3 });
const TREASURY = tenantId('acme-treasury');
const manager = 'usr_bulk_000001';

describe('roles update by a role manager', () => {
  it('refuses renaming a role they cannot fully hold, and widening one they hold', async () => {
    const sandbox = svc.sandbox();
    const admin = { token: sandbox.adminToken, tenant: TREASURY };
    const made = async (name: string, permissions: string[]) =>
      (
        await call(sandbox, 'POST', '/v1/roles', {
          ...admin,
          body: { name, permissions, idempotency_key: name },
        })
      ).body.id as string;
    const mgr = await made('ru-mgr', ['role.read', 'role.manage', 'role.assign', 'exception.read']);
    await made('ru-super', ['account.write', 'role.read']);
    await adminGrant(sandbox, TREASURY, manager, mgr);
    await adminGrant(sandbox, TREASURY, manager, await made('ru-rules', ['rule.read']));
    const env = { SVC_TOKEN: sandbox.issueToken(manager).token, SVC_TENANT: TREASURY };

    const renamed = await svc.run(['roles', 'update', 'ru-super', '--name', 'ru-readers'], { env });
    expect([renamed.code, renamed.stdout]).toEqual([4, '']);
    expect(renamed.stderr.split('\n')[0]).toMatch(
      /^error: you can only change a role whose permissions you all hold yourself; you lack account\.write \(HTTP 403, insufficient_permission, request req_\w+\)$/,
    );
    const widened = await svc.run(['roles', 'update', 'ru-mgr', '--add-permission', 'rule.read'], { env });
    expect([widened.code, widened.stdout]).toEqual([4, '']);
    expect(widened.stderr.split('\n')[0]).toMatch(
      /^error: you cannot put permissions into a role you hold; ask another administrator \(HTTP 403, self_assignment, request req_\w+\)$/,
    );
    const roles = (await call(sandbox, 'GET', '/v1/roles', admin)).body.items as Array<{
      name: string;
      permissions: string[];
    }>;
    expect(roles.find((r) => r.name === 'ru-super')?.permissions).toEqual(['account.write', 'role.read']);
    expect(roles.find((r) => r.name === 'ru-mgr')?.permissions).not.toContain('rule.read');
  });
});
