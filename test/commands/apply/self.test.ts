import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMINISTERING } from '../../../src/ascode/lockout.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// What svc apply never does to the caller, judged when it applies (exploratory test s6, ascode):
// a saved plan is checked against the caller's grants at apply time (another admin may have
// revoked the grant that made a narrowing harmless); the platform's self_assignment rule is
// planned as `refused`; a role replaced since the plan is drift; a plan that is not one svc
// wrote is refused in one line.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-self-');
const LEDGER = tenantId('acme-ledger-uk');
const APAC = tenantId('acme-apac');
const real = { clock: { now: () => Date.now() } };
const ADMIN = 'usr_admin';

describe('svc apply and the caller', () => {
  it('refuses a saved plan that would now take away your own administration: your other grant went since (exit 6, nothing sent)', async () => {
    const sandbox = svc.sandbox();
    const role = await as(sandbox, LEDGER, 'POST', '/v1/roles', {
      name: 'superadmin2',
      permissions: [...ADMINISTERING],
    });
    // Permanent: the admin's own permanent tenant_admin can be revoked below only while another
    // grant keeps the tenant administered as long (last-admin.test.ts).
    await as(sandbox, LEDGER, 'POST', `/v1/users/${user(6)}/roles`, {
      role_id: 'tenant_admin',
      justification: 'helper',
    });
    const other = sandbox.issueToken(user(6), { expiresInSeconds: 600 }).token;
    const byOther = (method: string, path: string, body?: Record<string, unknown>) =>
      call(sandbox, method, path, { token: other, tenant: LEDGER, ...(body ? { body } : {}) });
    expect(
      (
        await byOther('POST', `/v1/users/${ADMIN}/roles`, {
          role_id: role.id,
          expires_at: '2031-01-01T00:00:00Z',
          justification: 'second path',
          idempotency_key: 'self-test-1',
        })
      ).status,
    ).toBeLessThan(300);
    const file = writeFile(
      dir,
      'lo2.yaml',
      'version: 1\nmanage: {roles: all, grants: listed-roles}\nblocks:\n  - tenants: acme-ledger-uk\n    roles:\n      - name: superadmin2\n        permissions: [role.read]\n',
    );
    const saved = join(dir, 'lo2.plan.json');
    const planned = await svc.run(['plan', '-f', file, '--out', saved, '--ndjson'], real);
    expect(planned.code).toBe(10);
    // Harmless when planned: tenant_admin still administers the tenant.
    expect(ndjson(planned.stdout).filter((c) => c.refused)).toEqual([]);

    expect((await byOther('DELETE', `/v1/users/${ADMIN}/roles/tenant_admin`)).status).toBeLessThan(300);
    const before = await writes(sandbox);
    const applied = await svc.run(['apply', saved, '--yes'], real);
    expect(applied.code).toBe(6);
    expect(applied.stdout).toBe('');
    expect(applied.stderr).toBe(
      `acme-ledger-uk: role superadmin2 (${role.id}): it would take away your own administration of acme-ledger-uk (role.manage, role.assign, webhook.read, webhook.manage, oauth_client.manage); keep it in the file, or have another administrator make this change\n` +
        `error: your own grants changed since ${saved} was computed, and 1 of its changes (each on a line above) would now change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission held without an end date that you hold only until a date (a webhook, an OAuth client), or create or change an OAuth client with an API key or a third-party client's token (only a user with their own login may); nothing was applied; run \`svc plan -f ${file} --out ${saved}\` again and review the new plan\n`,
    );
    expect(await writes(sandbox)).toBe(before);
    const held = await call(sandbox, 'GET', `/v1/roles/${role.id}`, {
      token: sandbox.adminToken,
      tenant: LEDGER,
    });
    expect([...held.body.permissions].sort()).toEqual([...ADMINISTERING].sort());
  });

  it('plans granting yourself a role, or moving your own expiry, as refused; apply sends nothing', async () => {
    const file = writeFile(
      dir,
      'self.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: ${ADMIN}\n        role: tenant_admin\n        expires_in: 30d\n        justification: rotate\n      - user: ${ADMIN}\n        role: tenant_viewer\n      - user: ${user(10)}\n        role: tenant_viewer\n`,
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], real);
    expect(planned.code).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'shorten',
        `${ADMIN} tenant_admin`,
        'nobody changes the expiry of their own grant (tenant_admin): the platform refuses it (self_assignment); have another administrator make this change, or leave it out of the file',
      ],
      [
        'grant',
        `${ADMIN} tenant_viewer`,
        'nobody grants themselves a role (tenant_viewer): the platform refuses it (self_assignment); have another administrator make this change, or leave it out of the file',
      ],
      ['grant', `${user(10)} tenant_viewer`, null],
    ]);
    expect(planned.stderr).toContain('svc apply refuses 2 of these changes');
    const before = await writes(svc.sandbox());
    const applied = await svc.run(['apply', '-f', file, '--yes'], real);
    expect(applied.code).toBe(2);
    // One line per refused change, then the error.
    expect(applied.stderr.split('\n').map((line) => line.slice(0, 60))).toEqual([
      'acme-labs: shorten tenant_admin of usr_admin: nobody changes',
      'acme-labs: grant tenant_viewer to usr_admin: nobody grants t',
      "error: svc apply refuses 2 of the plan's changes (each on a ",
      '',
    ]);
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('with an API key, plans granting its issuer a role as refused, and refuses a saved plan that would (exploratory test s11)', async () => {
    const sandbox = svc.sandbox();
    const issued = await as(sandbox, LABS, 'POST', `/v1/tenants/${LABS}/api-keys`, {
      kind: 'service_role',
      name: 'access-as-code',
      justification: 'applies the access file',
    });
    const byKey = { env: { SVC_TOKEN: issued.key as string, SVC_TENANT: LABS }, ...real };
    const file = writeFile(
      dir,
      'key-self.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - { user: ${ADMIN}, role: tenant_viewer }\n      - { user: ${user(12)}, role: tenant_viewer }\n`,
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], byKey);
    expect(planned.code).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'grant',
        `${ADMIN} tenant_viewer`,
        `this API key was issued by ${ADMIN}, and nobody grants themselves a role (tenant_viewer): the platform refuses it (self_assignment); have another administrator make this change, or leave it out of the file`,
      ],
      ['grant', `${user(12)} tenant_viewer`, null],
    ]);
    const before = await writes(sandbox);
    const applied = await svc.run(['apply', '-f', file, '--yes'], byKey);
    expect([applied.code, applied.stdout]).toEqual([2, '']);
    expect(applied.stderr).toMatch(
      /^error: svc apply refuses acme-labs: grant tenant_viewer to usr_admin: this API key was issued by usr_admin, /,
    );
    expect(await writes(sandbox)).toBe(before);

    // True both ways: the platform refuses the key exactly the issuer's grant, in those words.
    const grant = (target: string) =>
      call(sandbox, 'POST', `/v1/users/${target}/roles`, {
        token: issued.key,
        tenant: LABS,
        body: { role_id: 'tenant_viewer', justification: 'probe', idempotency_key: `key-self-${target}` },
      });
    const own = await grant(ADMIN);
    expect([own.status, own.body.error.code, own.body.error.message]).toEqual([
      403,
      'self_assignment',
      `this API key was issued by ${ADMIN}, and nobody grants roles to themselves; ask another administrator`,
    ]);
    expect((await grant(user(12))).status).toBe(201);

    // A plan saved by another administrator, applied with the key: judged on the key's issuer now.
    await as(sandbox, LABS, 'POST', `/v1/users/${user(13)}/roles`, {
      role_id: 'tenant_admin',
      justification: 'second admin',
    });
    const other = { env: { SVC_TOKEN: sandbox.issueToken(user(13)).token, SVC_TENANT: LABS }, ...real };
    const saved = join(dir, 'key-self.plan.json');
    const theirs = await svc.run(['plan', '-f', file, '--out', saved, '--ndjson'], other);
    expect(ndjson(theirs.stdout).map((c) => [c.name, c.refused ?? null])).toEqual([
      [`${ADMIN} tenant_viewer`, null],
    ]);
    const later = await writes(sandbox);
    const appliedSaved = await svc.run(['apply', saved, '--yes'], byKey);
    expect([appliedSaved.code, appliedSaved.stdout]).toEqual([6, '']);
    expect(appliedSaved.stderr).toBe(
      `acme-labs: grant tenant_viewer to ${ADMIN}: this API key was issued by ${ADMIN}, and nobody grants themselves a role (tenant_viewer): the platform refuses it (self_assignment); have another administrator make this change, or leave it out of the file\n` +
        `error: ${saved} was planned by ${user(13)}, and you (${issued.id}) may not make 1 of its changes (each on a line above): they would change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission held without an end date that you hold only until a date (a webhook, an OAuth client), or create or change an OAuth client with an API key or a third-party client's token (only a user with their own login may); nothing was applied; have someone who may make them apply the plan, or plan again as yourself\n`,
    );
    expect(await writes(sandbox)).toBe(later);
  });

  it('takes a role deleted and created again with the same name for drift (exit 6), not for the role it planned', async () => {
    const sandbox = svc.sandbox();
    const first = await as(sandbox, APAC, 'POST', '/v1/roles', {
      name: 'rc1',
      permissions: ['exception.read'],
    });
    const file = writeFile(
      dir,
      'rc.yaml',
      'version: 1\nmanage: {roles: all}\nblocks:\n  - tenants: acme-apac\n',
    );
    const saved = join(dir, 'rc.plan.json');
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    await call(sandbox, 'DELETE', `/v1/roles/${first.id}`, { token: sandbox.adminToken, tenant: APAC });
    const second = await as(sandbox, APAC, 'POST', '/v1/roles', {
      name: 'rc1',
      permissions: ['exception.read'],
    });
    const before = await writes(sandbox);
    const applied = await svc.run(['apply', saved, '--prune', '--yes'], real);
    expect(applied.code).toBe(6);
    expect(applied.stderr).toContain(
      `acme-apac: role rc1 names another role since the plan (${second.id}, not ${first.id}, which is no longer listed: deleted, or the platform's state was reset)\n`,
    );
    expect(applied.stderr).toContain('nothing was applied');
    expect(await writes(sandbox)).toBe(before);
  });

  // attack29b F5: a role renamed, another made with its name, was said "deleted and created again".
  it('says a role renamed since the plan was renamed, not deleted (exit 6)', async () => {
    const sandbox = svc.sandbox();
    const first = await as(sandbox, APAC, 'POST', '/v1/roles', {
      name: 'rc2',
      permissions: ['exception.read'],
    });
    const file = writeFile(
      dir,
      'rc2.yaml',
      'version: 1\nmanage: {roles: all}\nblocks:\n  - tenants: acme-apac\n',
    );
    const saved = join(dir, 'rc2.plan.json');
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    await as(sandbox, APAC, 'PATCH', `/v1/roles/${first.id}`, { name: 'rc2-old' });
    const second = await as(sandbox, APAC, 'POST', '/v1/roles', {
      name: 'rc2',
      permissions: ['exception.read'],
    });
    const before = await writes(sandbox);
    const applied = await svc.run(['apply', saved, '--prune', '--yes'], real);
    expect(applied.code).toBe(6);
    expect(applied.stderr).toContain(
      `acme-apac: role rc2 names another role since the plan (${second.id}, not ${first.id}, which is now named rc2-old)\n`,
    );
    expect(applied.stderr).not.toContain('deleted');
    expect(await writes(sandbox)).toBe(before);
  });

  it.each([
    [
      'no changes',
      (p: Record<string, any>) => ({ ...p, tenants: [{ id: LABS, slug: 'acme-labs' }] }),
      'tenants[0].display_name is missing',
    ],
    [
      'a change cut short',
      (p: Record<string, any>) => ({
        ...p,
        tenants: [{ ...p.tenants[0], changes: [{ kind: 'grant', action: 'create' }] }],
      }),
      'tenants[0].changes[0].verb is missing',
    ],
    [
      'a kind svc does not know',
      (p: Record<string, any>) => ({
        ...p,
        tenants: [{ ...p.tenants[0], changes: [{ ...p.tenants[0].changes[0], kind: 'group' }] }],
      }),
      'tenants[0].changes[0].kind is "group"',
    ],
  ])('refuses a plan that is not one svc wrote: %s (exit 2, one line)', async (_name, edit, problem) => {
    const file = writeFile(
      dir,
      'edit.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - { user: ${user(11)}, role: tenant_viewer }\n`,
    );
    const saved = join(dir, 'edit.plan.json');
    expect((await svc.run(['plan', '-f', file, '--out', saved], real)).code).toBe(10);
    const { readFileSync } = await import('node:fs');
    const edited = writeFile(
      dir,
      'edited.json',
      JSON.stringify(edit(JSON.parse(readFileSync(saved, 'utf8')))),
    );
    expect(await svc.run(['apply', edited, '--yes'], real)).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${edited} is not a plan svc wrote: ${problem}; a plan is applied as svc plan --out saved it; save a new one with \`svc plan -f FILE --out PLAN.json\`\n`,
    });
  });
});
