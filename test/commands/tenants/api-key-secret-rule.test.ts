/**
 * One rule for every secret svc receives once (journey15 F4): a service_role key (tenant_admin
 * power until revoked) was printed unasked, into a pipe or a CI log, while a webhook signing secret
 * needs --secret-file or --show-secret. The key now follows the webhook rule, refused before
 * anything is created; a publishable key (read-only, made to be embedded) is still printed.
 */
import { describe, expect, it } from 'vitest';
import { ACME, requestCount, useLiveAdmin } from '../../helpers/sandbox.js';

const { sandbox, env, svc } = useLiveAdmin();
const SERVICE_ROLE = [
  'tenants',
  'api-keys',
  'create',
  ACME,
  '--kind',
  'service_role',
  '--justification',
  'testing the first hour',
];

describe('service_role keys take --secret-file or --show-secret', () => {
  it('neither: refused before anything is created', async () => {
    const before = await requestCount(sandbox());
    const r = await svc(SERVICE_ROLE, { env });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: svc tenants api-keys create returns the service_role key once: pass --secret-file PATH (or --show-secret to print it); ' +
        'the key acts as tenant_admin until revoked and is shown only in this answer\n',
    ]);
    expect(await requestCount(sandbox())).toBe(before);
  });

  it('--show-secret prints it, as before', async () => {
    const r = await svc([...SERVICE_ROLE, '--show-secret'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^key\tsvc_sk_\S+$/m);
  });

  it('both: refused', async () => {
    const r = await svc([...SERVICE_ROLE, '--show-secret', '--secret-file', 'x.key'], { env });
    expect([r.code, r.stderr]).toEqual([2, 'error: use --secret-file or --show-secret, not both\n']);
  });

  it('a publishable key is printed without being asked', async () => {
    const r = await svc(['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^key\tsvc_pk_\S+$/m);
  });
});
