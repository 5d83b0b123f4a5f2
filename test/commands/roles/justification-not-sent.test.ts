import { describe, expect, it } from 'vitest';
import { ndjson } from '../../helpers/context.js';
import { adminGrant, call, useSandboxContext } from '../../helpers/sandbox.js';

// A grant found already at the row's expiry (session 28's leftover): `roles assign --file --extend`
// sends its POST (with the justification), is answered 409 assignment_exists and moves nothing, so
// the row's justification is recorded nowhere (the audit trail keeps the one of the write that set
// the grant). The row says so; never a silent already_assigned, and never "not sent" of a request
// that was sent (review29c M2: the flag is `justification_not_recorded`).
const svc = useSandboxContext({ users: 3 });

/** POSTs of a grant the sandbox answered 409, counted from its stats. */
async function assignPosts(): Promise<number> {
  const stats = (await call(svc.sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([k]) => /^POST \S*\/roles 409$/.test(k))
    .reduce((sum, [, n]) => sum + n, 0);
}

describe('roles assign --file of a grant already at the row’s expiry', () => {
  it('is skipped already_assigned, saying the row’s justification was sent but not recorded', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const user = 'usr_bulk_000001';
    await adminGrant(svc.sandbox(), tenant, user, 'tenant_viewer', '2031-01-01T00:00:00Z');
    const csv = `user,role,expires_at,justification\n${user},tenant_viewer,2031-01-01T00:00:00Z,audit ticket 42\n`;
    const r = await svc.run(['roles', 'assign', '--file', '-', '--extend', '--yes', '--ndjson'], {
      stdin: csv,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await assignPosts()).toBe(1);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(
      rows.map((row) => [
        row.status,
        row.reason,
        row.justification_not_sent,
        row.justification_not_recorded,
        row.note,
      ]),
    ).toEqual([
      [
        'skipped',
        'already_assigned',
        undefined,
        true,
        "the row's justification was sent but not recorded: the platform left the grant in place as it was, and the audit trail keeps the justification of the change that set the grant, not the row's",
      ],
    ]);
  });

  it('a grant carrying the row’s own justification: skipped, nothing more said', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const user = 'usr_bulk_000002';
    await adminGrant(svc.sandbox(), tenant, user, 'tenant_viewer', '2031-01-01T00:00:00Z');
    const csv = `user,role,expires_at,justification\n${user},tenant_viewer,2031-01-01T00:00:00Z,test grant\n`;
    const r = await svc.run(['roles', 'assign', '--file', '-', '--extend', '--yes', '--ndjson'], {
      stdin: csv,
    });
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'line' in row);
    expect(rows.map((row) => [row.status, row.reason, row.justification_not_recorded, row.note])).toEqual([
      ['skipped', 'already_assigned', undefined, undefined],
    ]);
  });
});
