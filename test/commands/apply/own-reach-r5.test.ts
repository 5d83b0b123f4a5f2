import { describe, expect, it } from 'vitest';
import { as, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { ACME, adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// Review 15c R5: a role manager narrows their own role (drops exception.read) and re-describes
// another role that carries exception.read. svc plan judged both on the holds before the run and
// passed them; svc apply made the narrowing first (by name: rolemgr2 before zz-reader), was then
// refused the description ("you can only change a role whose permissions you all hold yourself;
// you lack exception.read"), exit 7, half applied, and no re-run could finish it. Now the
// narrowing of one's own role is made last (src/ascode/own-reach.ts).
const svc = useSandboxContext({ users: 5 });
const dir = useTempDir('svc-own-reach-r5-');
const real = { clock: { now: () => Date.now() } };
const MANAGER = 'usr_bulk_000002';

async function roleOf(name: string): Promise<{ description: string; permissions: string[] }> {
  const r = await call(svc.sandbox(), 'GET', '/v1/roles?limit=200', {
    token: svc.sandbox().adminToken,
    tenant: ACME,
  });
  const found = r.body.items.find((x: { name: string }) => x.name === name);
  return { description: found.description, permissions: [...found.permissions].sort() };
}

describe('review15c R5: narrowing your own role and re-describing another', () => {
  it('plan passes both, and apply makes both: the other role first, your own narrowing last (exit 0)', async () => {
    const sandbox = svc.sandbox();
    const mgr = await as(sandbox, ACME, 'POST', '/v1/roles', {
      name: 'rolemgr2',
      permissions: ['role.read', 'role.manage', 'role.assign', 'exception.read'],
    });
    await adminGrant(sandbox, ACME, MANAGER, mgr.id, null);
    await as(sandbox, ACME, 'POST', '/v1/roles', { name: 'zz-reader', permissions: ['exception.read'] });
    const env = { SVC_TOKEN: sandbox.issueToken(MANAGER, { expiresInSeconds: 600 }).token, SVC_TENANT: ACME };
    const file = writeFile(
      dir,
      'order.yaml',
      'version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - name: rolemgr2\n        description: ""\n' +
        '        permissions: [role.assign, role.manage, role.read]\n      - name: zz-reader\n        description: "changed"\n' +
        '        permissions: [exception.read]\n',
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { ...real, env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      ['update', 'rolemgr2', null],
      ['update', 'zz-reader', null],
    ]);
    const applied = await svc.run(['apply', '-f', file, '--yes', '--concurrency', '1', '--ndjson'], {
      ...real,
      env,
    });
    expect(applied.stderr).not.toContain('error');
    expect(applied.code).toBe(0);
    expect(ndjson(applied.stdout).map((r) => [r.name, r.status])).toEqual([
      ['zz-reader', 'ok'],
      ['rolemgr2', 'ok'],
    ]);
    expect(await roleOf('zz-reader')).toEqual({ description: 'changed', permissions: ['exception.read'] });
    expect((await roleOf('rolemgr2')).permissions).toEqual(['role.assign', 'role.manage', 'role.read']);
  });
});
