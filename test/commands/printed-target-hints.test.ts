/**
 * The commands an error's hint or `svc export`'s fix lines name carry the run's target flags
 * (`targetOptions`: -p, --base-url, --tenant …, and --allow-insecure-http when the base URL needs
 * it), as a listing's continuation does (printed-target.test.ts): pasted into a fresh shell they
 * look where the run did, not in the default profile's tenant (s11 "Open, not fixed"). One case
 * per way a hint is made: the platform client's catalog of "not found" hints, an operation's own
 * (lookIn), a verb's lookup (role-ref), a tenant lookup (without the tenant), export's fixes, and
 * a usage error raised before any request.
 */
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { as } from '../helpers/ascode.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const EU = 'acme-payments-eu';
const REQ = /request req_[0-9a-f]+/g;

/** A fresh shell's environment: the credential and private directories, no SVC_TENANT or SVC_BASE_URL. */
const freshShell = () => ({ ...svc.env(), SVC_TENANT: undefined, SVC_BASE_URL: undefined });
const url = () => svc.sandbox().url;
/** The global options of a run that named the sandbox and a second tenant by flag. */
const flags = () => ['--base-url', url(), '--tenant', EU];

const run = async (argv: string[], env: Record<string, string | undefined> = freshShell()) => {
  const r = await svc.run(argv, { env });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr.replace(REQ, 'request req_X') };
};

describe('hints of errors name commands on the run’s target', () => {
  it('a "not found" of the platform client’s catalog (webhooks get)', async () => {
    expect(await run([...flags(), 'webhooks', 'get', 'wh_nope'])).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: webhook wh_nope not found (HTTP 404, not_found, request req_X); see \`svc --base-url ${url()} --tenant ${EU} webhooks ls\` for the webhooks of the tenant\n`,
    });
  });

  it('an operation’s own "not found" hint (deliveries get of a known webhook)', async () => {
    const made = await as(svc.sandbox(), tenantId(EU), 'POST', '/v1/webhooks', {
      url: 'https://hooks.example/eu-hints',
      event_types: ['webhook.test'],
    });
    const id = made.id as string;
    expect(await run([...flags(), 'webhooks', 'deliveries', 'get', id, 'dlv_nope'])).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: delivery dlv_nope not found (HTTP 404, not_found, request req_X); see \`svc --base-url ${url()} --tenant ${EU} webhooks deliveries ls ${id}\` for its deliveries\n`,
    });
  });

  it('a verb’s own lookup (roles get of an unknown role id)', async () => {
    expect(await run(['-p', 'default', ...flags(), 'roles', 'get', 'role_6370e8230e917ee4366c75ff'])).toEqual(
      {
        code: 5,
        stdout: '',
        stderr: `error: no role "role_6370e8230e917ee4366c75ff" in this tenant (HTTP 404, not_found); no role of this tenant, live or deleted, has that id: see \`svc -p default --base-url ${url()} --tenant ${EU} roles ls --include-deleted\` for their ids (--tenant for another tenant's)\n`,
      },
    );
  });

  it('a tenant lookup names `svc tenants ls` without the run’s tenant', async () => {
    const r = await run([...flags(), 'tenants', 'api-keys', 'ls', 'acme-nosuch']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: no tenant "acme-nosuch" among your tenants.*\\(see \`svc --base-url ${url()} tenants ls\`\\)\\n$`,
      ),
    );
  });

  it('a tenant the credential does not have names `svc me` without that tenant', async () => {
    const wayne = tenantId('wayne-clearing');
    expect(await run(['--base-url', url(), '--tenant', wayne, 'me'])).toEqual({
      code: 4,
      stdout: '',
      stderr: `error: tenant ${wayne} is not one of your credential's tenants (HTTP 403, tenant_forbidden, request req_X); use a tenant your credential has (\`svc --base-url ${url()} me\` lists them, run without this --tenant or SVC_TENANT), or a credential that has this tenant\n`,
    });
  });

  it('export’s fix lines repeat the profile and base URL, in the tenant of the value', async () => {
    await as(svc.sandbox(), tenantId(EU), 'POST', '/v1/roles', {
      name: 'sec-hint',
      description: 'old key whsec_0123456789abcdefABCDEF was rotated',
      permissions: ['exception.read'],
    });
    const r = await run(['--base-url', url(), 'export', '--tenant', EU, '--only', 'roles']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `${EU}: role sec-hint: "description" looks like a secret; fix: svc --base-url ${url()} --tenant ${EU} roles update sec-hint --description TEXT`,
    );
  });
});

describe('--allow-insecure-http in printed lines', () => {
  const noTenant = () => ({ ...freshShell(), SVC_ALLOW_INSECURE_HTTP: undefined });
  const fix = (options: string) =>
    `error: missing TENANT; pass it, or set the profile's tenant (--tenant, SVC_TENANT, \`svc config set tenant\`); see \`svc ${options}tenants ls\`\n`;

  it('is repeated when it was given and the base URL is plain http to a host that is not loopback', async () => {
    const argv = [
      '--base-url',
      'http://api.example:8080',
      '--allow-insecure-http',
      'tenants',
      'api-keys',
      'ls',
    ];
    expect(await run(argv, noTenant())).toEqual({
      code: 2,
      stdout: '',
      stderr: fix('--base-url http://api.example:8080 --allow-insecure-http '),
    });
  });

  it('is not repeated for a loopback or https base URL, nor when it came from the environment', async () => {
    for (const base of ['http://127.0.0.1:9', 'https://api.example']) {
      expect(
        (await run(['--base-url', base, '--allow-insecure-http', 'tenants', 'api-keys', 'ls'], noTenant()))
          .stderr,
      ).toBe(fix(`--base-url ${base} `));
    }
    expect(
      (
        await run(['--base-url', 'http://api.example:8080', 'tenants', 'api-keys', 'ls'], {
          ...noTenant(),
          SVC_ALLOW_INSECURE_HTTP: '1',
        })
      ).stderr,
    ).toBe(fix('--base-url http://api.example:8080 '));
  });
});
