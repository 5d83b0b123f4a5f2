import { describe, expect, it } from 'vitest';
import { assignments, bulkRunner, bulkUser, customRole, fixedClock } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';

// svc's own outputs as its bulk input (attack20 F1): `svc roles assignments … --ndjson | svc roles
// revoke --file -` and a bulk run's result rows are read by their user and role; the other fields
// svc writes in those shapes are passed over by name, and a field svc never writes stays refused.

const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);

describe('svc output as bulk input', () => {
  it('roles assignments --ndjson, piped to roles revoke --file -, revokes what it lists', async () => {
    const { id, name } = await svc.grantedByFile('own-listing', [1, 2]);
    const listing = await svc.run(['roles', 'assignments', '--role', name, '--ndjson']);
    expect(listing.code).toBe(0);
    const dry = await svc.run(['roles', 'revoke', '--file', '-', '--dry-run', '--ndjson'], {
      stdin: listing.stdout,
    });
    expect([dry.code, dry.stderr]).toEqual([
      0,
      'dry run: 2 would be revoked, 0 would be skipped, 0 would fail; nothing was changed\n',
    ]);
    const run = await svc.run(['roles', 'revoke', '--file', '-', '--yes', '--ndjson'], {
      stdin: listing.stdout,
      clock: fixedClock(),
    });
    expect([run.code, run.stderr]).toEqual([0, '✓ 2 revoked in Acme Treasury (acme-treasury) (0.0 s)\n']);
    expect((await assignments(sandbox(), id)).active).toBe(0);
  });

  it('roles assignments --json (an array) is read as well', async () => {
    const { id, name } = await svc.grantedByFile('own-listing-json', [3]);
    const listing = await svc.run(['roles', 'assignments', '--role', name, '--json']);
    const run = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], {
      stdin: listing.stdout,
      clock: fixedClock(),
    });
    expect([run.code, run.stderr]).toEqual([0, '✓ 1 revoked in Acme Treasury (acme-treasury) (0.0 s)\n']);
    expect((await assignments(sandbox(), id)).active).toBe(0);
  });

  it('the result rows of roles assign --file --ndjson undo the grants through roles revoke --file', async () => {
    const name = 'own-results';
    const id = await customRole(sandbox(), name);
    const grants = `user,role,expires_in,justification\n${bulkUser(4)},${name},8h,t\n${bulkUser(5)},${name},8h,t\n`;
    const granted = await svc.run(['roles', 'assign', '--file', '-', '--ndjson'], { stdin: grants });
    expect(granted.code).toBe(0);
    const results = svc.file('own-results.ndjson', granted.stdout);
    const run = await svc.run(['roles', 'revoke', '--file', results, '--yes', '--ndjson'], {
      clock: fixedClock(),
    });
    expect([run.code, run.stderr]).toEqual([0, '✓ 2 revoked in Acme Treasury (acme-treasury) (0.0 s)\n']);
    expect((await assignments(sandbox(), id)).active).toBe(0);
    // A revoke's own result rows grant the roles again, given the expiry and justification a grant needs.
    const again = await svc.run(
      ['roles', 'assign', '--file', '-', '--expires-in', '8h', '--justification', 'undo'],
      { stdin: run.stdout, clock: fixedClock() },
    );
    expect([again.code, again.stderr]).toEqual([0, '✓ 2 granted in Acme Treasury (acme-treasury) (0.0 s)\n']);
    expect((await assignments(sandbox(), id)).active).toBe(2);
  });

  it('an ended assignment of a listing is not granted again: the row says so, with the filter', async () => {
    const name = 'own-ended';
    await customRole(sandbox(), name);
    const listing = [
      { user_id: bulkUser(6), role_id: name, role_name: name, expires_at: null, status: 'revoked' },
    ]
      .map((a) => JSON.stringify(a))
      .join('\n');
    const r = await svc.run(
      ['roles', 'assign', '--file', '-', '--expires-in', '8h', '--justification', 'back'],
      {
        stdin: `${listing}\n`,
      },
    );
    expect([r.code, r.stderr]).toEqual([
      2,
      `stdin:1: the assignment is revoked (its status): it grants nothing to copy; keep the active ones: jq -c 'select(.status == "active")'\nerror: 1 line of stdin has problems; nothing was sent; fix them and run the command again (columns: user, role, expires_in or expires_at, justification)\n`,
    ]);
  });

  it('a field svc never writes is still refused, once per field, with the jq line that keeps the columns', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], {
      stdin: `{"user_id":"${bulkUser(7)}","role_id":"tenant_viewer","colour":"red"}\n`,
    });
    expect([r.code, r.stderr]).toEqual([
      2,
      `stdin:1: unknown field "colour"\nerror: 1 line of stdin has problems; nothing was sent; fix them and run the command again (columns: user, role); keep only those: jq -c '{user: (.user // .user_id), role: (.role // .role_id)}'\n`,
    ]);
  });

  it('a row whose role and role_id are not one role (renamed since, or one edited) is refused, not one picked', async () => {
    const r = await svc.run(['roles', 'revoke', '--file', '-', '--yes'], {
      stdin: `{"user":"${bulkUser(8)}","role":"tenant_viewer","role_id":"tenant_analyst","status":"ok"}\n`,
    });
    expect([r.code, r.stderr]).toEqual([
      2,
      `stdin:1: role "tenant_viewer" and role_id "tenant_analyst" are not one role; keep one\nerror: 1 line of stdin has problems; nothing was sent; fix them and run the command again (columns: user, role)\n`,
    ]);
  });
});
