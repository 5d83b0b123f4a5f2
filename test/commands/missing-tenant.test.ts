/**
 * A profile without a tenant, on an operation that needs one: the server's 400
 * tenant_header_required comes with the fix in svc's terms (which profile, and the three ways to
 * give it a tenant), on a terminal as in a pipe; an operation that needs none still works.
 */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const NO_TENANT = { SVC_TENANT: undefined };

const line = (profile: string, flag = '') =>
  new RegExp(
    `^error: this endpoint needs the X-Tenant-Id header \\(HTTP 400, tenant_header_required, request req_[^)]+\\); no tenant for profile "${profile}": pass --tenant, set SVC_TENANT or \`svc ${flag}config set tenant ID_OR_SLUG\` \\(see \`svc ${flag}tenants ls\`\\)\\n$`,
  );

describe('no tenant for a tenant-scoped operation', () => {
  it.each([
    ['in a pipe', {}],
    ['on a terminal', { tty: true }],
  ])('says which profile has none and how to give it one (%s), exit 2', async (_where, tty) => {
    const r = await svc.run(['roles', 'ls'], { env: NO_TENANT, ...tty });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(line('default'));
  });

  it('is one JSON object with the hint under --json', async () => {
    const r = await svc.run(['roles', 'ls', '--json'], { env: NO_TENANT });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'tenant_header_required',
      hint: 'no tenant for profile "default": pass --tenant, set SVC_TENANT or `svc config set tenant ID_OR_SLUG` (see `svc tenants ls`)',
    });
  });

  it('an operation that needs no tenant still works without one', async () => {
    const r = await svc.run(['me', '--json'], { env: NO_TENANT });
    expect([r.code, JSON.parse(r.stdout).id]).toEqual([0, 'usr_admin']);
  });

  // Review s9 L2: svc api printed the server's line only.
  it.each([
    ['svc api', ['api', '/v1/roles']],
    ['svc api --paginate', ['api', '/v1/roles', '--paginate']],
  ])('%s gets the same hint', async (_what, argv) => {
    const r = await svc.run(argv, { env: NO_TENANT });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(line('default'));
  });

  // Last: `config set` makes "work" the active profile of this file's config directory.
  it('keeps -p NAME in the command it suggests', async () => {
    expect(
      (await svc.run(['-p', 'work', 'config', 'set', 'base_url', svc.sandbox().url], { env: NO_TENANT }))
        .code,
    ).toBe(0);
    const r = await svc.run(['-p', 'work', 'webhooks', 'ls'], {
      env: { ...NO_TENANT, SVC_BASE_URL: undefined },
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(line('work', '-p work '));
  });
});
