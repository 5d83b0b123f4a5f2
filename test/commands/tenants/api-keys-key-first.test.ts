/**
 * attack26a F10: `svc tenants api-keys revoke KEY --yes`, its TENANT left out as `ls` and `create`
 * allow, said "missing required argument 'key-id'" though the key id was given; `api-keys get KEY
 * TENANT` (swapped) looked up a tenant named key_…. A key id (key_…) is never a tenant's id or
 * slug: alone it is the KEY, in the profile's tenant; first before a TENANT it is refused with the
 * command meant, as `roles assign/revoke` refuse ROLE USER (roles/swapped.ts).
 */
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

const key = async (name: string) => {
  const r = await svc.run([
    '--json',
    'tenants',
    'api-keys',
    'create',
    'acme-treasury',
    '--kind',
    'publishable',
    '--name',
    name,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { id: string }).id;
};

describe('tenants api-keys get / revoke KEY without TENANT', () => {
  it('reads and revokes the key in the profile’s tenant', async () => {
    const id = await key('alone');
    const got = await svc.run(['tenants', 'api-keys', 'get', id, '--json']);
    expect([got.code, got.stderr]).toEqual([0, '']);
    expect(JSON.parse(got.stdout)).toMatchObject({ id, name: 'alone' });
    const revoked = await svc.run(['tenants', 'api-keys', 'revoke', id, '--yes']);
    expect(revoked).toEqual({
      code: 0,
      stdout: '',
      stderr: `✓ revoked API key ${id} (alone) of Acme Treasury (acme-treasury)\n`,
    });
  });

  it('with no tenant in the profile either, asks for one (exit 2)', async () => {
    const r = await svc.run(['tenants', 'api-keys', 'revoke', 'key_0123456789abcdef01234567', '--yes'], {
      env: { SVC_TENANT: undefined },
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^error: missing TENANT; pass it, or set/);
  });
});

describe('tenants api-keys get / revoke KEY TENANT (swapped)', () => {
  it.each([
    [['get'], 'get acme-treasury KEY'],
    [['revoke', '--yes'], 'revoke acme-treasury KEY --yes'],
  ])('%j: refused with the command meant, exit 2, nothing sent', async (verb, meant) => {
    const id = await key('swapped');
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['tenants', 'api-keys', verb[0]!, id, 'acme-treasury', ...verb.slice(1)]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: arguments are TENANT KEY: did you mean \`svc tenants api-keys ${meant.replace('KEY', id)}\`?\n`,
    });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });
});
