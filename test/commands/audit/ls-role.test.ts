import { describe, expect, it } from 'vitest';
import { assignArgv } from '../../helpers/bulk.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// svc audit ls --role and --user as a tenant_auditor, the role its help names (findings s11 M1,
// L1), and --role NAME when several roles have had that name (M2).
const svc = useSandboxContext();
const live = { now: Date.now() };
const auditor = () => ({ ...live, env: { SVC_TOKEN: svc.sandbox().issueToken('usr_auditor').token } });
const ids = (stdout: string) => (JSON.parse(stdout) as Array<{ id: string }>).map((e) => e.id);

async function ok(argv: string[]) {
  const r = await svc.run(argv, live);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

/** Grants ROLE to USER for good (assignArgv); the audit entry's id. */
async function grant(user: string, role: string) {
  const out = await ok(assignArgv(user, role, '--json'));
  return (JSON.parse(out) as { audit_trail_id: string }).audit_trail_id;
}

describe('svc audit ls --role', () => {
  it('works for a tenant_auditor with a built-in name or a role id, and with a custom name through the trail', async () => {
    const granted = await grant('usr_lead', 'tenant_compliance');
    const builtIn = await svc.run(
      ['audit', 'ls', '--role', 'tenant_compliance', '--actor', 'usr_admin', '--json'],
      auditor(),
    );
    expect([builtIn.code, builtIn.stderr]).toEqual([0, '']);
    expect(ids(builtIn.stdout)).toEqual([granted]);

    const role = JSON.parse(
      await ok(['roles', 'create', '--name', 'aud-desk', '--permission', 'exception.read', '--json']),
    );
    const mine = await grant('usr_analyst', 'aud-desk');
    const byId = await svc.run(['audit', 'ls', '--role', role.id, '--json'], auditor());
    expect([byId.code, byId.stderr]).toEqual([0, '']);
    const entries = ids(byId.stdout);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toBe(mine);
    const byName = await svc.run(['audit', 'ls', '--role', 'aud-desk', '--json'], auditor());
    expect([byName.code, byName.stderr]).toEqual([0, '']);
    expect(ids(byName.stdout)).toEqual(entries);

    const unknown = await svc.run(['audit', 'ls', '--role', 'aud-dsk'], auditor());
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toMatch(/^error: no role "aud-dsk" in this tenant's audit trail; /);
  });

  it('--role NAME says which role it covers when others have had that name, and how to see theirs', async () => {
    const first = JSON.parse(
      await ok(['roles', 'create', '--name', 'ops-x', '--permission', 'exception.read', '--json']),
    );
    const held = await grant('usr_analyst', 'ops-x');
    await ok(['roles', 'delete', 'ops-x', '--yes']);
    const second = JSON.parse(
      await ok(['roles', 'create', '--name', 'ops-x', '--permission', 'exception.read', '--json']),
    );
    const deleted = JSON.parse(await ok(['roles', 'get', first.id, '--json'])).deleted_at;
    const note = `warning: --role ops-x covers ${second.id} (live); ops-x was also the name of ${first.id} (deleted ${deleted}): --role ${first.id} for its entries\n`;
    for (const who of [live, auditor()]) {
      const r = await svc.run(['audit', 'ls', '--role', 'ops-x', '--json'], who);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(note);
      expect(ids(r.stdout)).toHaveLength(1);
      const old = await svc.run(['audit', 'ls', '--role', first.id, '--json'], who);
      expect(ids(old.stdout)).toContain(held);
    }
  });
});

describe('svc audit ls --user', () => {
  it('tells a tenant_auditor that a user id that matches nothing could not be checked', async () => {
    const r = await svc.run(['audit', 'ls', '--user', 'usr_leda'], auditor());
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'warning: no entries, and svc could not check that usr_leda is a user of this tenant (listing users needs role.read); check the id\n',
    });
  });
});
