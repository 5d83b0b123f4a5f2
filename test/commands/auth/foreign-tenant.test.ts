import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// everyday13 F4: a profile whose tenant is not one of the new login's tenants. login refused and
// pointed to `tenants ls`, which said "not logged in"; once logged in, me, tenants ls and auth
// status failed (exit 5, "status unknown") for a credential the platform accepts. The way out,
// `config set tenant`, was never named.
const sandbox = useSandbox();
const dirs = useTempDirs();
const env = () => ({ ...dirs(), NO_COLOR: '1' });
const FIX =
  'the tenant "acme-treasury" of profile "w" is not one of yours (yours: wayne-clearing): ' +
  '`svc -p w config set tenant wayne-clearing`, or `svc -p w config unset tenant`';

async function bruce(): Promise<string> {
  const r = await call(sandbox(), 'POST', '/_sandbox/tokens', { body: { user_id: 'usr_bruce' } });
  return r.body.access_token as string;
}

async function profileW(): Promise<void> {
  rmSync(dirs().SVC_CONFIG_DIR, { recursive: true, force: true });
  for (const argv of [
    ['-p', 'w', 'config', 'set', 'base_url', sandbox().url],
    ['-p', 'w', 'config', 'set', 'tenant', 'acme-treasury'],
  ]) {
    expect((await runInProcess(argv, env())).code).toBe(0);
  }
}

describe('a profile tenant that is not one of the login’s', () => {
  it('login --with-token stores the token and names the way out', async () => {
    await profileW();
    const login = await runInProcess(['-p', 'w', 'login', '--with-token'], env(), { stdin: await bruce() });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain('as Bruce');
    expect(login.stderr).toContain(`warning: ${FIX}\n`);
  });

  it('me, tenants ls and auth status answer, and name the way out', async () => {
    await profileW();
    await runInProcess(['-p', 'w', 'login', '--with-token'], env(), { stdin: await bruce() });
    const me = await runInProcess(['-p', 'w', 'me'], env());
    expect([me.code, me.stderr]).toEqual([0, `warning: ${FIX}\n`]);
    expect(me.stdout).toMatch(/^id\tusr_bruce$/m);
    const ls = await runInProcess(['-p', 'w', 'tenants', 'ls'], env());
    expect([ls.code, ls.stderr]).toEqual([0, `warning: ${FIX}\n`]);
    expect(ls.stdout).toMatch(/wayne-clearing/);
    const status = await runInProcess(['-p', 'w', 'auth', 'status'], env());
    expect(status.stderr).toBe(`warning: ${FIX}\n`);
    expect(status.stdout).toMatch(/^status\tlogged in$/m);
    expect(status.stdout).toMatch(/^identity\t.*\(usr_bruce\)$/m);
    expect(status.code).toBe(0);
  });

  it('another command refuses with the way out, not a loop through tenants ls', async () => {
    await profileW();
    await runInProcess(['-p', 'w', 'login', '--with-token'], env(), { stdin: await bruce() });
    const r = await runInProcess(['-p', 'w', 'users', 'ls'], env());
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      'error: no tenant "acme-treasury" (from profile w) among your tenants; ' +
        'yours: wayne-clearing; `svc -p w config set tenant wayne-clearing`, or `svc -p w config unset tenant`\n',
    );
  });
});
