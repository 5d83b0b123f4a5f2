import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

// `svc tenants ls --role X` filters by the caller's live roles in each tenant (any of them): a built-in role, org_admin,
// or a custom role's name. A value no role can have is refused before the request (exit 2) with
// the valid values; one that only a custom role could have is sent, and an empty answer says so.
const svc = useSandboxContext();
const VALID =
  "tenant_admin, tenant_reviewer, tenant_lead, tenant_analyst, tenant_rule_author, tenant_ai_prompter, tenant_compliance, tenant_auditor, tenant_viewer, org_admin, or a custom role's name";

describe('svc tenants ls --role', () => {
  it.each([
    ['tenant_viwer', ' (did you mean tenant_viewer?)'],
    ['TENANT_ADMIN', ' (did you mean tenant_admin?)'],
    ['org_owner', ''],
    ['role_0123456789abcdef01234567', ''],
  ])('%s is refused before any request, with the valid values (exit 2)', async (role, suggestion) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['tenants', 'ls', '--role', role]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: --role ${JSON.stringify(role)} is not a role name${suggestion}; give ${VALID}\n`,
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('a built-in role is sent; a possible custom role name too, and an empty answer says what it matched', async () => {
    const admin = await svc.run(['tenants', 'ls', '--role', 'tenant_admin']);
    expect([admin.code, admin.stderr]).toEqual([0, '']);
    expect(admin.stdout).toContain('acme-treasury');
    const custom = await svc.run(['tenants', 'ls', '--role', 'bogus'], {
      tty: { stdout: true },
      columns: 120,
    });
    expect([custom.code, custom.stdout, custom.stderr]).toEqual([
      0,
      '',
      'no tenants match: bogus is not a built-in role, so it matched custom role names exactly, and you hold none by that name\n',
    ]);
  });

  it('a custom role held beside a built-in one matches, though the role column shows the built-in one', async () => {
    const created = await svc.run([
      'roles',
      'create',
      '--name',
      'fx-desk',
      '--permission',
      'exception.read',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const assigned = await svc.run([
      'roles',
      'assign',
      'usr_viewer',
      'fx-desk',
      '--expires-in',
      'never',
      '--justification',
      'fx desk',
    ]);
    expect(assigned.code).toBe(0);
    const viewer = svc.sandbox().issueToken('usr_viewer').token;
    const r = await svc.run(['tenants', 'ls', '--role', 'fx-desk'], { env: { SVC_TOKEN: viewer } });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t')[1]),
    ).toEqual(['acme-treasury']);
    expect(r.stdout).toContain('\ttenant_viewer\t');
  });
});
