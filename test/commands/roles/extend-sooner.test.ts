import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole, fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useSandbox } from '../../helpers/sandbox.js';

// `--extend` moves an expiry to the one given, sooner as well as later (--expires-in counts from
// now): a newcomer who "extends" an 8 h grant by --expires-in 4h loses 4 hours. svc does it (it is
// legitimate) and says so, in single runs, bulk runs and dry runs alike.
const sandbox = useSandbox({ users: 20 });
const svc = bulkRunner(sandbox);
const grant = (user: string, role: string, ...flags: string[]) =>
  svc.run(['roles', 'assign', user, role, '--justification', 'INC-4711', ...flags], { clock: fixedClock() });

describe('svc roles assign --extend that moves an expiry sooner', () => {
  it('a single grant says by how much it shortens it; a later expiry says nothing more', async () => {
    const role = await customRole(sandbox(), 'oncall-a');
    expect((await grant(bulkUser(1), role, '--expires-in', '8h')).code).toBe(0);
    const shorter = await grant(bulkUser(1), role, '--extend', '--expires-in', '4h');
    expect(shorter.code, shorter.stderr).toBe(0);
    expect(shorter.stderr).toMatch(
      /^warning: this shortens the grant by 4 h \(--extend sets the expiry given, sooner or later; --expires-in counts from now\)\n✓ usr_bulk_000001 holds oncall-a in Acme Treasury \(acme-treasury\) until \S+ now \(was until \S+; audit trail aud_\w+\)\n$/,
    );
    const longer = await grant(bulkUser(1), role, '--extend', '--expires-in', '12h', '--json');
    expect([longer.code, longer.stderr]).toEqual([0, '']);
    const permanent = await grant(bulkUser(1), role, '--extend', '--expires-in', 'never');
    expect(permanent.stderr).not.toContain('warning');
    const ends = await grant(bulkUser(1), role, '--extend', '--expires-in', '1h', '--json');
    expect([ends.code, ends.stderr]).toEqual([
      0,
      'warning: this makes a permanent grant end (--extend sets the expiry given, sooner or later; --expires-in counts from now)\n',
    ]);
  });

  it('a bulk run and its dry run say it on the row', async () => {
    const role = await customRole(sandbox(), 'oncall-b');
    expect((await grant(bulkUser(2), role, '--expires-in', '8h')).code).toBe(0);
    expect((await grant(bulkUser(3), role, '--expires-in', '1h')).code).toBe(0);
    const path = svc.file(
      'sooner.csv',
      `user,role,expires_in,justification\n${bulkUser(2)},oncall-b,4h,x\n${bulkUser(3)},oncall-b,4h,y\n`,
    );
    const argv = ['roles', 'assign', '--file', path, '--extend', '--concurrency', '1'];
    const dry = await svc.run([...argv, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n').map((l) => l.split('\t').at(-1))).toEqual([
      'expiry_updated: this shortens the grant by 4 h',
      'expiry_updated',
      '',
    ]);
    expect(dry.stderr).toMatch(
      /^dry run: .*\nwarning: line 2 would shorten a grant \(--extend moves an expiry sooner as well as later\)\n$/,
    );
    const real = await svc.run([...argv, '--ndjson']);
    expect(real.code, real.stderr).toBe(0);
    expect(ndjson(real.stdout).map((x) => [x.line, x.reason, x.note ?? null])).toEqual([
      [2, 'expiry_updated', 'this shortens the grant by 4 h'],
      [3, 'expiry_updated', null],
    ]);
    expect(real.stderr).toMatch(
      /^✓ 2 granted or extended in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)\nwarning: line 2 shortened a grant \(--extend moves an expiry sooner as well as later\)\n$/,
    );
  });
});
