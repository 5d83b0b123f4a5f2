import { describe, expect, it } from 'vitest';
import type { Role } from '../../../src/api/schemas/roles.js';
import { changeSaid } from '../../../src/commands/roles/holder-change.js';
import { parseRolesUpdate, runRolesUpdate } from '../../../src/commands/roles/update.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';

// Finding tenants 3 (s10): `roles update` said "its 1 holder loses exception.read" of a holder who
// keeps it through another live role (usr_lead holds tenant_lead), or through a broader
// permission the role keeps (rule.write grants rule.write.fx). What svc says a holder gains or
// loses is now what they really gain or lose, from their other live roles.
const svc = useSandboxContext({ users: 3 });
let keys = 0;

async function roleHeldBy(name: string, permissions: string[], users: string[]): Promise<string> {
  const created = await svc.run([
    'roles',
    'create',
    '--name',
    name,
    '--permission',
    permissions.join(','),
    '--json',
  ]);
  expect(created.code, created.stderr).toBe(0);
  const id = JSON.parse(created.stdout).id as string;
  for (const user of users) {
    const granted = await call(svc.sandbox(), 'POST', `/v1/users/${user}/roles`, {
      token: svc.sandbox().adminToken,
      tenant: svc.env().SVC_TENANT!,
      body: { role_id: id, idempotency_key: `update-holders-${++keys}` },
    });
    expect(granted.status).toBe(201);
  }
  return id;
}

async function update(role: string, flags: Record<string, unknown>): Promise<string> {
  const { ctx, stderr } = svc.context({ tty: true });
  await runRolesUpdate(ctx, parseRolesUpdate(role, flags));
  return stderr();
}

describe('svc roles update says what holders really gain or lose', () => {
  it('a permission the holder keeps through another role is not lost', async () => {
    const id = await roleHeldBy('oddrole2', ['exception.read'], ['usr_lead']);
    expect(
      await update('oddrole2', { removePermission: ['exception.read'], addPermission: ['rule.read'] }),
    ).toBe(
      `✓ role oddrole2 (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 now has rule.read and does not have exception.read; its 1 holder gains rule.read and keeps exception.read through another role\n`,
    );
  });

  it('a permission the role still grants through a broader one is neither gained nor lost', async () => {
    const id = await roleHeldBy('hier', ['rule.write'], ['usr_viewer']);
    expect(await update('hier', { addPermission: ['rule.write.fx'] })).toBe(
      `✓ role hier (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 now has rule.write.fx; its 1 holder already had rule.write.fx through rule.write\n`,
    );
    expect(await update('hier', { removePermission: ['rule.write.fx'] })).toBe(
      `✓ role hier (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 now does not have rule.write.fx; its 1 holder keeps rule.write.fx through rule.write, which the role keeps\n`,
    );
  });

  it('counts who loses among several holders', async () => {
    // usr_lead holds exception.read through tenant_lead (and rule.read through oddrole2, above);
    // usr_bulk_000001 holds no other role.
    const id = await roleHeldBy('split', ['exception.read'], ['usr_lead', 'usr_bulk_000001']);
    expect(
      await update('split', { removePermission: ['exception.read'], addPermission: ['evidence_pack.read'] }),
    ).toBe(
      `✓ role split (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 now has evidence_pack.read and does not have exception.read; its 2 holders gain evidence_pack.read, and 1 of them loses exception.read (1 keeps it through other roles)\n`,
    );
  });

  it('all holders lose a permission nobody holds otherwise', async () => {
    const id = await roleHeldBy('alone', ['audit_trail.read'], ['usr_bulk_000002', 'usr_bulk_000003']);
    expect(
      await update('alone', { removePermission: ['audit_trail.read'], addPermission: ['rule.read'] }),
    ).toBe(
      `✓ role alone (${id}) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 now has rule.read and does not have audit_trail.read; its 2 holders gain rule.read and lose audit_trail.read\n`,
    );
  });
});

describe('changeSaid without the holders (a server that cannot list them)', () => {
  const role = (permissions: string[], name = 'r'): Role =>
    ({ id: 'role_x', name, kind: 'custom', scope: 'tenant', permissions }) as Role;
  it.each<[string, string[], string[], string]>([
    [
      'a swap',
      ['exception.read'],
      ['rule.read'],
      '; it now grants rule.read and no longer grants exception.read',
    ],
    [
      'a narrower one removed',
      ['rule.write', 'rule.write.fx'],
      ['rule.write'],
      '; it still grants rule.write.fx through rule.write',
    ],
    [
      'a narrower one added',
      ['rule.write'],
      ['rule.write', 'rule.write.fx'],
      '; it already granted rule.write.fx through rule.write',
    ],
  ])('%s is said of the role', (_, before, after, said) => {
    expect(changeSaid(role(before), role(after), undefined)).toBe(said);
  });

  it('says of several holders who lose only where none loses all', () => {
    const holders = [
      { user: 'a', elsewhere: ['exception.read'] },
      { user: 'b', elsewhere: [] },
    ];
    expect(changeSaid(role(['exception.read', 'rule.read']), role(['rule.read']), holders)).toBe(
      '; of its 2 holders, 1 loses exception.read (1 keeps it through other roles)',
    );
  });
});
