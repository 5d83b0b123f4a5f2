import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

// everyday13 F10: `tenants ls --role org_admin` answered "no tenants match" to usr_admin, org_admin
// of org_demo and a member of each of its tenants: org_admin counted only for tenants seen solely
// through it. It matches every tenant of the organisation the caller administers.
const svc = useSandboxContext();

describe('svc tenants ls --role org_admin', () => {
  it('lists the tenants of the organisation you administer, members or not', async () => {
    const all = await svc.run(['tenants', 'ls', '--json']);
    const mine = (JSON.parse(all.stdout) as Array<{ slug: string }>).map((t) => t.slug);
    expect(mine.length).toBeGreaterThan(0);
    const r = await svc.run(['tenants', 'ls', '--role', 'org_admin', '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ slug: string; role: string }>).map((t) => t.slug)).toEqual(mine);
    const org = await svc.run([
      'tenants',
      'ls',
      '--role',
      'org_admin',
      '--org',
      'org_demo',
      '--limit',
      '3',
      '--json',
    ]);
    expect(JSON.parse(org.stdout)).toHaveLength(3);
  });
});
