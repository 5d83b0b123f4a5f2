import { describe, expect, it } from 'vitest';
import { as, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { ACME, adminGrant, call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// The changes svc apply makes last (they take away some of the caller's own reach) are made, or
// refused by svc plan, in their own order on the holds each leaves (review16 R3, R11, and the
// s16-policy fixer's doubt). A plan svc plan approved is not half applied by apply's own order.
const svc = useSandboxContext();
const dir = useTempDir('svc-own-reach-order-');
const real = { clock: { now: () => Date.now() } };
const admin = () => ({ token: svc.sandbox().adminToken, tenant: ACME });

async function role(name: string, permissions: string[]): Promise<string> {
  return (await as(svc.sandbox(), ACME, 'POST', '/v1/roles', { name, description: name, permissions })).id;
}

async function hour(hours: number): Promise<string> {
  const now = Math.floor((await sandboxNow(svc.sandbox())) / 1000) * 1000;
  return new Date(now + hours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Every live custom role and active grant of Acme Treasury as file lines, but those `skip` names. */
async function everything(skip: (role: string) => boolean): Promise<{ roles: string; grants: string }> {
  const roles = (await call(svc.sandbox(), 'GET', '/v1/roles?limit=200', admin())).body.items.filter(
    (r: { kind: string; name: string }) => r.kind === 'custom' && !skip(r.name),
  );
  const grants = (
    await call(svc.sandbox(), 'GET', '/v1/role-assignments?limit=500', admin())
  ).body.items.filter(
    (a: { status?: string; role_name: string }) => (a.status ?? 'active') === 'active' && !skip(a.role_name),
  );
  return {
    roles: roles
      .map(
        (r: { name: string; permissions: string[] }) =>
          `      - {name: ${r.name}, description: ${r.name}, permissions: [${r.permissions.join(', ')}]}\n`,
      )
      .join(''),
    grants: grants
      .map(
        (a: { role_name: string; user_id: string; expires_at: string | null; justification?: string }) =>
          `      - {role: ${a.role_name}, user: ${a.user_id}${a.expires_at ? `, expires_at: "${a.expires_at}", justification: kept` : ''}}\n`,
      )
      .join(''),
  };
}

async function roleNames(): Promise<string[]> {
  const r = await call(svc.sandbox(), 'GET', '/v1/roles?limit=200', admin());
  return r.body.items
    .filter((x: { kind: string }) => x.kind === 'custom')
    .map((x: { name: string }) => x.name);
}

describe('svc apply: the changes made last, in their order', () => {
  it('--prune of a role you hold: the deletion ends your grant of it, not a revocation before it (R3)', async () => {
    const gm = await role('gm3', ['role.assign', 'role.read', 'role.manage', 'rule.read']);
    const rw = await role('rw3', ['rule.read', 'rule.write']);
    await adminGrant(svc.sandbox(), ACME, 'usr_viewer', gm, null);
    await adminGrant(svc.sandbox(), ACME, 'usr_viewer', rw, null);
    await adminGrant(svc.sandbox(), ACME, 'usr_analyst', rw, null);
    const env = { SVC_TOKEN: svc.sandbox().issueToken('usr_viewer', { expiresInSeconds: 600 }).token };
    const { roles, grants } = await everything((name) => name === 'rw3');
    const file = writeFile(
      dir,
      'prune-held.yaml',
      `version: 1\nmanage:\n  roles: all\n  grants: all\nblocks:\n  - tenants: acme-treasury\n    roles:\n${roles}    grants:\n${grants}`,
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { ...real, env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(
      ndjson(planned.stdout).map((c) => [
        c.verb,
        c.name,
        c.refused ?? null,
        c.last ?? null,
        c.ended_by ?? null,
      ]),
    ).toEqual([
      ['revoke', 'usr_viewer rw3', null, true, `${ACME}/role/delete/${rw}`],
      ['revoke', 'usr_analyst rw3', null, null, null],
      ['delete', 'rw3', null, true, null],
    ]);
    const shown = await svc.run(['plan', '-f', file], { ...real, env });
    expect(shown.stdout).toContain(
      'only with --prune; ends with the deletion of rw3, made last: it takes away some of your own reach',
    );
    const applied = await svc.run(['apply', '-f', file, '--prune', '--yes', '--ndjson'], { ...real, env });
    expect(applied.stderr).not.toContain('error');
    expect(applied.code).toBe(0);
    expect(ndjson(applied.stdout).map((r) => [r.action, r.name, r.status, r.reason ?? null])).toEqual([
      ['revoke', 'usr_analyst rw3', 'ok', null],
      ['delete', 'rw3', 'ok', null],
      ['revoke', 'usr_viewer rw3', 'skipped', 'ended_with_role'],
    ]);
    expect(await roleNames()).not.toContain('rw3');
  });

  it('an API key: narrowing a role its issuer needs for the key is refused by svc plan, nothing sent (R11)', async () => {
    const adminRole = (await call(svc.sandbox(), 'GET', '/v1/roles?limit=200', admin())).body.items.find(
      (r: { name: string }) => r.name === 'tenant_admin',
    );
    const all: string[] = [...adminRole.permissions].sort();
    const allperm = await role('allperm11', all);
    await adminGrant(svc.sandbox(), ACME, 'usr_reviewer', allperm, null);
    const issued = await call(svc.sandbox(), 'POST', `/v1/tenants/${ACME}/api-keys`, {
      token: svc.sandbox().issueToken('usr_reviewer', { expiresInSeconds: 600 }).token,
      tenant: ACME,
      body: {
        kind: 'service_role',
        name: 'rk',
        justification: 'key issued by reviewer',
        idempotency_key: 'rk-11',
      },
    });
    expect(issued.status, issued.text).toBe(201);
    const env = { SVC_TOKEN: issued.body.key as string };
    const narrowed = all.filter((p) => p !== 'report.generate');
    const file = writeFile(
      dir,
      'key-issuer.yaml',
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - {name: allperm11, description: allperm11, permissions: [${narrowed.join(', ')}]}\n    grants:\n      - {role: tenant_viewer, user: usr_ai_prompter, expires_in: 1h, justification: key test grant}\n`,
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { ...real, env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'update',
        'allperm11',
        'it would stop the API key you are applying with: the key acts only while usr_reviewer, who issued it, holds every permission of tenant_admin without an end date, and after this plan they would not hold report.generate; have usr_reviewer (with their own login) or another administrator make this change, or leave it out of the file',
      ],
      ['grant', 'usr_ai_prompter tenant_viewer', null],
    ]);
    // Review 16d D6: plan's closing warning lists the reason it refuses (REFUSAL_REASONS).
    expect(planned.stderr).toContain(
      'warning: svc apply refuses 1 of these changes: they would change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out',
    );
    const applied = await svc.run(['apply', '-f', file, '--yes'], { ...real, env });
    expect(applied.code).toBe(2);
    expect(applied.stderr).toBe(
      `error: svc apply refuses acme-treasury: role allperm11 (${allperm}): it would stop the API key you are applying with: the key acts only while usr_reviewer, who issued it, holds every permission of tenant_admin without an end date, and after this plan they would not hold report.generate; have usr_reviewer (with their own login) or another administrator make this change, or leave it out of the file; nothing was applied\n`,
    );
    const live = (await call(svc.sandbox(), 'GET', '/v1/roles?limit=200', admin())).body.items.find(
      (r: { name: string }) => r.name === 'allperm11',
    );
    expect(live.permissions).toContain('report.generate');
    const me = await call(svc.sandbox(), 'GET', '/v1/me', { token: env.SVC_TOKEN });
    expect(me.status).toBe(200);
  });

  /**
   * usr_compliance: a role manager and `a` (rule.read, account.read) for good, `b` (the same) for
   * 2 h; the file narrows a to account.read and b to rule.read and grants b for good (and a too,
   * with `grantA`). Before the run rule.read is held for good, through a; after a's narrowing only
   * until b ends. The s16-policy fixer's doubt.
   */
  async function narrowTwo(a: string, b: string, grantA: boolean) {
    const until = await hour(2);
    const mgr = await role(`${a}-mgr`, ['role.assign', 'role.read', 'role.manage']);
    await adminGrant(svc.sandbox(), ACME, 'usr_compliance', mgr, null);
    await adminGrant(
      svc.sandbox(),
      ACME,
      'usr_compliance',
      await role(a, ['rule.read', 'account.read']),
      null,
    );
    await adminGrant(
      svc.sandbox(),
      ACME,
      'usr_compliance',
      await role(b, ['rule.read', 'account.read']),
      until,
    );
    const env = { SVC_TOKEN: svc.sandbox().issueToken('usr_compliance', { expiresInSeconds: 600 }).token };
    const file = writeFile(
      dir,
      `${a}.yaml`,
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - {name: ${a}, description: ${a}, permissions: [account.read]}\n      - {name: ${b}, description: ${b}, permissions: [rule.read]}\n    grants:\n      - {role: ${b}, user: usr_analyst}\n${grantA ? `      - {role: ${a}, user: usr_analyst}\n` : ''}`,
    );
    return { until, env, file };
  }

  it('a narrowing no grant needs is made after the grants made last, so it takes nothing from them (s16-policy doubt)', async () => {
    const { env, file } = await narrowTwo('a4', 'b4', false);
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { ...real, env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.last ?? null, c.refused ?? null])).toEqual([
      ['update', 'a4', true, null],
      ['update', 'b4', true, null],
      ['grant', 'usr_analyst b4', true, null],
    ]);
    const applied = await svc.run(['apply', '-f', file, '--yes', '--ndjson'], { ...real, env });
    expect(applied.stderr).not.toContain('error');
    expect(applied.code).toBe(0);
    expect(ndjson(applied.stdout).map((r) => [r.action, r.name, r.status])).toEqual([
      ['update', 'b4', 'ok'],
      ['grant', 'usr_analyst b4', 'ok'],
      ['update', 'a4', 'ok'],
    ]);
  });

  it('a grant made last that a narrowing made before it leaves beyond your hold is refused by svc plan, nothing sent', async () => {
    const { until, env, file } = await narrowTwo('a5', 'b5', true);
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { ...real, env });
    expect(planned.code, planned.stderr).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.last ?? null, c.refused ?? null])).toEqual([
      ['update', 'a5', true, null],
      ['update', 'b5', true, null],
      [
        'grant',
        'usr_analyst b5',
        true,
        `made last, after the narrowing of a5, the narrowing of b5, which take away some of your own reach, the platform refuses it (insufficient_permission): you cannot hand out access that outlives your own: you hold the permissions of b5 only until ${until}; set expires_at to ${until} or earlier`,
      ],
      ['grant', 'usr_analyst a5', true, null],
    ]);
    const applied = await svc.run(['apply', '-f', file, '--yes'], { ...real, env });
    expect(applied.code).toBe(2);
    expect(applied.stderr).toContain('nothing was applied');
    const roles = (await call(svc.sandbox(), 'GET', '/v1/roles?limit=200', admin())).body.items;
    expect(roles.find((r: { name: string }) => r.name === 'a5').permissions).toEqual([
      'account.read',
      'rule.read',
    ]);
  });
});
