/**
 * The TENANT argument of `svc tenants api-keys` verbs (attack24c F2, F3). An empty or blank one
 * listed the profile's tenant's keys under the name the script gave (a loop over an unset `$T`);
 * one that names another tenant than --tenant/SVC_TENANT silently won, and a --tenant naming no
 * tenant was never checked. Both are refused before any request.
 */
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

describe('tenants api-keys: an empty TENANT (attack24c F2)', () => {
  it.each([[''], [' ']])('ls %j is refused, exit 2, nothing listed', async (given) => {
    const r = await svc.run(['tenants', 'api-keys', 'ls', given]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: TENANT must not be empty\n');
  });
});

describe('tenants api-keys: a TENANT other than --tenant or SVC_TENANT (attack24c F3)', () => {
  const key = async () => {
    const r = await svc.run([
      '--json',
      'tenants',
      'api-keys',
      'create',
      'acme-treasury',
      '--kind',
      'publishable',
      '--name',
      'f3',
    ]);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { id: string }).id;
  };

  it.each([
    [['ls', 'acme-treasury']],
    [['create', 'acme-treasury', '--kind', 'publishable', '--name', 'dash']],
    [['get', 'acme-treasury', 'KEY']],
    [['revoke', '-y', 'acme-treasury', 'KEY']],
  ])('--tenant acme-payments-eu %j: refused naming both, nothing changed', async (argv) => {
    const id = await key();
    const before = await requestCount(svc.sandbox());
    const r = await svc.run([
      '--tenant',
      'acme-payments-eu',
      'tenants',
      'api-keys',
      ...argv.map((a) => (a === 'KEY' ? id : a)),
    ]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      'error: --tenant acme-payments-eu bounds this run to one tenant, but TENANT acme-treasury names another (Acme Treasury (acme-treasury)); nothing was changed; give the same tenant in both, or leave out --tenant\n',
    );
    // Only reads: the tenants resolved (GET /v1/me), no key made or revoked.
    expect(await requestCount(svc.sandbox())).toBeLessThanOrEqual(before + 2);
    const listed = await svc.run(['--json', 'tenants', 'api-keys', 'ls', 'acme-treasury']);
    const keys = JSON.parse(listed.stdout) as Array<{ id: string; name: string; revoked_at: string | null }>;
    expect(keys.find((k) => k.id === id)?.revoked_at).toBeNull();
    expect(keys.filter((k) => k.name === 'dash')).toEqual([]);
  });

  it('SVC_TENANT of another tenant: refused, naming the variable', async () => {
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-payments-eu']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(
      /^error: SVC_TENANT=\S+ bounds this run to one tenant, but TENANT acme-payments-eu names another \(.*\); nothing was changed; give the same tenant in both, or run it with SVC_TENANT unset \(`SVC_TENANT= svc …`\)\n$/,
    );
  });

  it('--tenant naming no tenant: checked (exit 5), not passed over', async () => {
    const r = await svc.run(['--tenant', 'nosuch', 'tenants', 'api-keys', 'ls', 'acme-treasury']);
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(r.stderr).toContain('nosuch');
  });

  it('the same tenant both ways (a slug and its id) is no conflict', async () => {
    const r = await svc.run(['tenants', 'api-keys', 'ls', 'acme-treasury']);
    expect(r.code, r.stderr).toBe(0);
  });
});
