import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { TenantForbiddenError } from '../../src/platform/errors.js';
import { tenantId } from '../../src/sandbox/seed.js';
import { runInProcess, testContext, useFreshDirs } from '../helpers/context.js';
import { ACME, useSandbox } from '../helpers/sandbox.js';

// attack23 F4: the advice of a refused tenant blamed the wrong setting. A 403 tenant_forbidden said
// "run without this --tenant or SVC_TENANT" when neither was given (the tenant was the profile's,
// or the command's own: a saved plan's); its org twin named an `svc me` that kept the --org it said
// to drop; and the "not one of yours" warning of `me`/`auth status` under SVC_TOKEN told the user to
// rewrite the profile's tenant for the sake of an environment variable.
const sandbox = useSandbox();
const dirs = useFreshDirs();
const WAYNE = tenantId('wayne-clearing');
const REQUEST = 'request req_[0-9a-f]+';

/** Profile "default" on the sandbox with `tenant`, logged in as usr_admin (stored, not SVC_TOKEN). */
async function profileWith(tenant: string): Promise<Record<string, string>> {
  const env = { ...dirs(), NO_COLOR: '1' };
  const store = new ConfigStore(env.SVC_CONFIG_DIR);
  await store.setProfileValues('default', { base_url: sandbox().url, tenant });
  await store.setCredential('default', {
    type: 'token',
    access_token: sandbox().adminToken,
    origin: new URL(sandbox().url).origin,
    obtained_at: new Date().toISOString(),
  });
  return env;
}

describe('a refused tenant or organisation: the advice names where it came from', () => {
  it("the profile's tenant: --tenant, or the profile's setting (not --tenant or SVC_TENANT)", async () => {
    const r = await runInProcess(['roles', 'ls'], await profileWith(WAYNE));
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: tenant ${WAYNE} is not one of your credential's tenants \\(HTTP 403, tenant_forbidden, ${REQUEST}\\); use a tenant your credential has \\(\`svc me\` lists them, pass --tenant, or \`svc -p default config set tenant SLUG\` for profile "default"\\), or a credential that has this tenant\\n$`,
      ),
    );
  });

  it("the profile's tenant with SVC_TOKEN's credential: --tenant, or unset SVC_TOKEN", async () => {
    const env = { ...(await profileWith(WAYNE)), SVC_TOKEN: sandbox().issueToken('usr_lead').token };
    const r = await runInProcess(['roles', 'ls'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      `(\`svc me\` lists them, pass --tenant for SVC_TOKEN's credential, or unset SVC_TOKEN to use profile "default"’s own login)`,
    );
  });

  it("the command's own tenant (a saved plan's, a file's): nothing to run without", async () => {
    const { ctx } = testContext({ env: await profileWith(ACME) });
    try {
      const platform = await ctx.platform();
      const refused = await platform.me.get({ tenant: WAYNE }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(TenantForbiddenError);
      expect((refused as TenantForbiddenError).hint).toBe(
        'use a tenant your credential has (`svc me` lists them), or a credential that has this tenant',
      );
    } finally {
      await ctx.close();
    }
  });

  it('--tenant or SVC_TENANT: said as before', async () => {
    const env = await profileWith(ACME);
    for (const [argv, more] of [
      [['--tenant', WAYNE, 'roles', 'ls'], {}],
      [['roles', 'ls'], { SVC_TENANT: WAYNE }],
    ] as const) {
      const r = await runInProcess([...argv], { ...env, ...more });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('(`svc me` lists them, run without this --tenant or SVC_TENANT)');
    }
  });

  it('--org: the `svc me` it names goes without that --org', async () => {
    const env = { ...(await profileWith(ACME)), SVC_TOKEN: sandbox().issueToken('usr_viewer').token };
    const r = await runInProcess(['--org', 'org_other', 'tenants', 'ls'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      'use an organisation your credential has (`svc me` shows it, run without this --org or SVC_ORG)',
    );
  });
});

describe("a profile's tenant that is not one of SVC_TOKEN's credential's", () => {
  it('me and auth status: --tenant with the token, or SVC_TOKEN unset; never the profile rewritten', async () => {
    // usr_lead's tenants are not Wayne Clearing.
    const env = { ...(await profileWith(WAYNE)), SVC_TOKEN: sandbox().issueToken('usr_lead').token };
    for (const argv of [['me'], ['auth', 'status']]) {
      const r = await runInProcess(argv, env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `^warning: the tenant "${WAYNE}" of profile "default" is not one of those of the credential in SVC_TOKEN \\([a-z, -]+\\): pass --tenant (SLUG|[a-z-]+) with that token, or unset SVC_TOKEN to use the profile’s own login\n`,
        ),
      );
      expect(r.stderr).not.toContain('config set tenant');
    }
  });
});
