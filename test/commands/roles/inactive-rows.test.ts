import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

// A revoked or role-deleted grant has ended: on a terminal its EXPIRES cell must not read "in 8
// hours" as if it still ran. Pipes and JSON keep the API's expires_at as it is.
const svc = useSandboxContext({ users: 6 });
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

async function grant(user: string, role: string): Promise<void> {
  const r = await svc.run(['roles', 'assign', user, role, '--expires-in', '8h', '--justification', 'l6'], {
    now: Date.now(),
  });
  expect(r.code, r.stderr).toBe(0);
}

const terminal = { tty: { stdout: true }, columns: 200, now: Date.now() } as const;
const rowOf = (stdout: string, start: string) =>
  stdout
    .split('\n')
    .find((line) => line.startsWith(start))
    ?.split(/ {2,}/);

describe('ended grants on a terminal', () => {
  it('roles holders --include-ended: a revoked row shows no expiry; an active one its time left; pipes keep expires_at', async () => {
    await svc.run(['roles', 'create', '--name', 'l6-desk', '--permission', 'rule.read']);
    await grant('usr_bulk_000001', 'l6-desk');
    await grant('usr_bulk_000002', 'l6-desk');
    const revoked = await svc.run(['roles', 'revoke', 'usr_bulk_000001', 'l6-desk', '--yes'], {
      ...terminal,
    });
    expect(revoked.code, revoked.stderr).toBe(0);
    // The revoked record says when the grant would have ended, not "(in 8 hours)".
    expect(revoked.stdout).toMatch(new RegExp(`^expires +${TIME}$`, 'm'));
    const shown = await svc.run(['roles', 'holders', 'l6-desk', '--include-ended'], { ...terminal });
    expect(shown.code, shown.stderr).toBe(0);
    expect(rowOf(shown.stdout, 'usr_bulk_000001')?.slice(0, 3)).toEqual(['usr_bulk_000001', 'revoked', '-']);
    expect(rowOf(shown.stdout, 'usr_bulk_000002')?.slice(0, 3)).toEqual([
      'usr_bulk_000002',
      'active',
      'in 8 hours',
    ]);
    const piped = await svc.run(['roles', 'holders', 'l6-desk', '--include-ended']);
    expect(piped.stdout).toMatch(new RegExp(`^usr_bulk_000001\\trevoked\\t${TIME}\\t`, 'm'));
    const json = JSON.parse(
      (await svc.run(['roles', 'holders', 'l6-desk', '--include-ended', '--json'])).stdout,
    );
    expect(json[0]).toMatchObject({ user_id: 'usr_bulk_000001', status: 'revoked' });
    expect(json[0].expires_at).toMatch(new RegExp(`^${TIME}$`));
  });

  it('roles assignments --include-ended (a user, and the tenant): role-deleted and revoked rows show no expiry', async () => {
    await svc.run(['roles', 'create', '--name', 'l6-gone', '--permission', 'rule.read']);
    await grant('usr_bulk_000003', 'l6-gone');
    await grant('usr_bulk_000003', 'tenant_viewer');
    expect((await svc.run(['roles', 'delete', 'l6-gone', '--yes'])).code).toBe(0);
    expect((await svc.run(['roles', 'revoke', 'usr_bulk_000003', 'tenant_viewer', '--yes'])).code).toBe(0);
    await grant('usr_bulk_000003', 'tenant_analyst');
    const mine = await svc.run(['roles', 'assignments', 'usr_bulk_000003', '--include-ended'], {
      ...terminal,
    });
    expect(mine.code, mine.stderr).toBe(0);
    expect(rowOf(mine.stdout, 'l6-gone')?.slice(0, 3)).toEqual(['l6-gone', 'role_deleted', '-']);
    expect(rowOf(mine.stdout, 'tenant_viewer')?.slice(0, 3)).toEqual(['tenant_viewer', 'revoked', '-']);
    expect(rowOf(mine.stdout, 'tenant_analyst')?.slice(0, 3)).toEqual([
      'tenant_analyst',
      'active',
      'in 8 hours',
    ]);
    const tenant = await svc.run(['roles', 'assignments', '--include-ended', '--role', 'tenant_viewer'], {
      ...terminal,
    });
    const row = tenant.stdout.split('\n').find((l) => l.startsWith('usr_bulk_000003'));
    expect(row?.split(/ {2,}/).slice(0, 4)).toEqual(['usr_bulk_000003', 'tenant_viewer', 'revoked', '-']);
    const piped = await svc.run(['roles', 'assignments', 'usr_bulk_000003', '--include-ended']);
    expect(piped.stdout).toMatch(new RegExp(`^l6-gone\\trole_deleted\\t${TIME}\\t`, 'm'));
    expect(piped.stdout).toMatch(new RegExp(`^tenant_viewer\\trevoked\\t${TIME}\\t`, 'm'));
  });
});
