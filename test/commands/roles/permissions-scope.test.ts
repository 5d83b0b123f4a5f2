import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

// svc roles permissions follows the catalog (findings escalate13 F2): tenant.read is granted by
// org_admin only, and said to be an organisation permission; svc roles create refuses it as the
// platform does.
const svc = useSandboxContext();

describe('svc roles permissions / create: an organisation permission', () => {
  it('is listed with its scope and org_admin alone; a custom role with it is refused, naming why', async () => {
    const list = await svc.run(['roles', 'permissions']);
    expect([list.code, list.stderr]).toEqual([0, '']);
    const rows = list.stdout.trimEnd().split('\n');
    expect(rows.find((r) => r.startsWith('tenant.read\t'))).toBe(
      'tenant.read\tList every tenant of the organisation: an organisation permission, granted by org_admin only (org_role), never by a tenant role\torg_admin\torganization',
    );
    expect(rows.find((r) => r.startsWith('role.read\t'))).toBe(
      "role.read\tList roles and users' role assignments\ttenant_admin\ttenant",
    );

    const create = await svc.run([
      'roles',
      'create',
      '--name',
      'tenantlister',
      '--permission',
      'tenant.read',
    ]);
    expect([create.code, create.stdout]).toEqual([2, '']);
    expect(create.stderr.split('\n')[0]).toMatch(
      /^error: tenant\.read is an organisation permission \(org_admin\): no tenant role can grant it; an organisation administrator sets org_role \(HTTP 400, invalid_request, request req_\w+\)$/,
    );
  });
});
