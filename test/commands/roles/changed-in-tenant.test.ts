/**
 * A change's ✓ line names the tenant it was made in (attack23 F5): an admin of several tenants
 * whose SVC_TENANT differs from the profile's default reads which one was changed, not the
 * default's name nor nothing. One rule since session 28 (fixout3; changed-in.ts, tenantWords):
 * `Display Name (slug)` as the platform gave them in the run's own GET /v1/me, read before the
 * change, the words an API key's ✓ line says (`of Acme Treasury (acme-treasury)`) and a question
 * asks in; else as the run named it, its slug or its id (no request of its own, and no slug kept
 * from an earlier run). It was the slug for a role's line and the display name for a key's.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { runInProcess } from '../../helpers/context.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { sandboxEnv } from '../../helpers/svc.js';
import { useTempDir } from '../../helpers/temp.js';

const sandbox = useSandbox();
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });
const dir = useTempDir('svc-changed-in-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** svc in-process with the profile's default tenant acme-treasury, SVC_TENANT as given. */
const svc = (args: string[], tenant: string | undefined, stdin?: string) =>
  runInProcess(
    args,
    { ...env, SVC_CACHE_DIR: dir, SVC_TENANT: tenant },
    { now: Date.now(), ...(stdin === undefined ? {} : { stdin }) },
  );

describe('✓ lines of a change in a tenant', () => {
  it('name the tenant SVC_TENANT chose, not the profile default', async () => {
    const set = await svc(['config', 'set', 'tenant', tenantId('acme-treasury')], undefined);
    expect(set.code, set.stderr).toBe(0);

    const grant = await svc(
      ['roles', 'assign', 'usr_analyst', 'tenant_viewer', '--expires-in', '8h', '--justification', 'F5'],
      'acme-payments-eu',
    );
    expect(grant.code, grant.stderr).toBe(0);
    expect(grant.stderr).toMatch(
      /^✓ granted tenant_viewer to usr_analyst in Acme Payments EU \(acme-payments-eu\) until \S+ \(audit trail \S+\)\n$/,
    );
    expect(grant.stdout).toContain('\ntenant\tacme-payments-eu\n');
    // The line is true: the grant is in acme-payments-eu, and the profile's default has none.
    const there = await svc(['roles', 'assignments', 'usr_analyst', '--json'], 'acme-payments-eu');
    expect(JSON.parse(there.stdout).map((a: { role_id: string }) => a.role_id)).toEqual(['tenant_viewer']);
    const home = await svc(['roles', 'assignments', 'usr_analyst', '--json'], undefined);
    expect(JSON.parse(home.stdout).map((a: { role_id: string }) => a.role_id)).toEqual(['tenant_analyst']);

    const moved = await svc(
      [
        'roles',
        'assign',
        'usr_analyst',
        'tenant_viewer',
        '--extend',
        '--expires-in',
        '9h',
        '--justification',
        'F5',
      ],
      'acme-payments-eu',
    );
    expect(moved.stderr).toMatch(
      /^✓ usr_analyst holds tenant_viewer in Acme Payments EU \(acme-payments-eu\) until /,
    );

    const revoke = await svc(
      ['roles', 'revoke', 'usr_analyst', 'tenant_viewer', '--yes'],
      'acme-payments-eu',
    );
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(revoke.stderr).toMatch(
      /✓ revoked tenant_viewer from usr_analyst in Acme Payments EU \(acme-payments-eu\) \(audit trail \S+\)\n$/,
    );

    const file = join(dir, 'grants.csv');
    writeFileSync(file, 'user,role\nusr_analyst,tenant_viewer\n');
    const bulk = await svc(
      ['roles', 'assign', '--file', file, '--expires-in', '8h', '--justification', 'F5'],
      'acme-payments-eu',
    );
    expect(bulk.code, bulk.stderr).toBe(0);
    expect(bulk.stderr).toMatch(/^✓ 1 granted in Acme Payments EU \(acme-payments-eu\) \(\d+\.\d s\)\n$/m);

    const role = await svc(
      ['roles', 'create', '--name', 'f5-desk', '--permission', 'account.read'],
      'acme-payments-eu',
    );
    expect(role.stderr).toMatch(
      /^✓ created role f5-desk \(\S+\) in Acme Payments EU \(acme-payments-eu\)\n$/,
    );
    // Without SVC_TENANT the profile's default is the one named, as its id was given.
    const other = await svc(
      ['roles', 'create', '--name', 'f5-desk', '--permission', 'account.read'],
      undefined,
    );
    expect(other.stderr).toMatch(
      new RegExp(`^✓ created role f5-desk \\(\\S+\\) in ${tenantId('acme-treasury')}\\n$`),
    );
  });

  it('name a tenant the profile holds by id by the names the platform gave in the run (any of its answers), else by its id', async () => {
    const set = await svc(['config', 'set', 'tenant', tenantId('acme-treasury')], undefined);
    expect(set.code, set.stderr).toBe(0);
    // roles assign reads GET /v1/me before it grants: its answer names the tenant acme-treasury.
    const grant = await svc(
      ['roles', 'assign', 'usr_analyst', 'tenant_viewer', '--expires-in', '8h', '--justification', 'slug'],
      undefined,
    );
    expect(grant.code, grant.stderr).toBe(0);
    expect(grant.stderr).toMatch(
      /^✓ granted tenant_viewer to usr_analyst in Acme Treasury \(acme-treasury\) until \S+ \(audit trail \S+\)\n$/,
    );
    const file = join(dir, 'slug-grants.csv');
    writeFileSync(file, 'user,role\nusr_analyst,tenant_lead\n');
    const bulk = await svc(
      ['roles', 'assign', '--file', file, '--expires-in', '8h', '--justification', 'slug'],
      undefined,
    );
    expect(bulk.code, bulk.stderr).toBe(0);
    // A bulk grant reads GET /v1/me before its first grant (who the caller is, to weigh each answer's
    // assigned_by): its names count as any answer's of the run do (attack29a: it said the id).
    expect(bulk.stderr).toMatch(/^✓ 1 granted in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)\n$/m);
    // A permanent grant reads no forecast before it is sent, but GET /v1/me after its answer (the
    // same weighing): named alike (attack29a: `--expires-in never` printed the id, a timed one the names).
    const permanent = await svc(
      [
        'roles',
        'assign',
        'usr_analyst',
        'tenant_auditor',
        '--expires-in',
        'never',
        '--justification',
        'slug',
      ],
      undefined,
    );
    expect(permanent.code, permanent.stderr).toBe(0);
    expect(permanent.stderr).toMatch(
      /^✓ granted tenant_auditor to usr_analyst in Acme Treasury \(acme-treasury\) permanently \(audit trail \S+\)\n$/,
    );
    // roles create reads nothing of the tenant: the id, as the run named it, never a slug an earlier
    // run read (the tenant may have been renamed since), and no request of its own for the words.
    const role = await svc(
      ['roles', 'create', '--name', 'slug-desk', '--permission', 'account.read'],
      undefined,
    );
    expect(role.stderr).toMatch(
      new RegExp(`^✓ created role slug-desk \\(\\S+\\) in ${tenantId('acme-treasury')}\\n$`),
    );
  });

  it("say the tenant in one form: a role's grant and an API key's creation alike (fixout3)", async () => {
    const set = await svc(['config', 'set', 'tenant', tenantId('acme-treasury')], undefined);
    expect(set.code, set.stderr).toBe(0);
    const grant = await svc(
      ['roles', 'assign', 'usr_analyst', 'tenant_reviewer', '--expires-in', '8h', '--justification', 'one'],
      undefined,
    );
    const key = await svc(
      ['tenants', 'api-keys', 'create', tenantId('acme-treasury'), '--kind', 'publishable', '--name', 'one'],
      undefined,
    );
    expect([grant.code, key.code], grant.stderr + key.stderr).toEqual([0, 0]);
    const granted = /^✓ granted tenant_reviewer to usr_analyst in (.+) until /.exec(grant.stderr)?.[1];
    const created = /^✓ created publishable API key key_\S+ \(one\) of (.+)\n/.exec(key.stderr)?.[1];
    expect([granted, created], grant.stderr + key.stderr).toEqual([
      'Acme Treasury (acme-treasury)',
      'Acme Treasury (acme-treasury)',
    ]);
  });
});
