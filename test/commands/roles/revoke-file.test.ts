import { describe, expect, it } from 'vitest';
import { assignments, bulkRunner, bulkUser, confirming, fixedClock, held } from '../../helpers/bulk.js';
import { ACME, useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 20 });
const svc = bulkRunner(sandbox);
let roles = 0;

const granted = (users: number[]) => svc.grantedByFile(`revoke-${++roles}`, users);

describe('svc roles revoke --file', () => {
  it('needs --yes without a terminal, and sends nothing without it', async () => {
    const { id, path } = await granted([1, 2]);
    const r = await svc.run(['roles', 'revoke', '--file', path]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: revoking the roles listed in ${path} needs confirmation; pass --yes to confirm non-interactively\n`,
    ]);
    expect((await assignments(sandbox(), id)).active).toBe(2);
  });

  it.each([
    [true, 0],
    [false, 2],
  ])('on a terminal asks first, naming the count and the tenant (answer %s → exit %i)', async (yes, code) => {
    const { id, path } = await granted([3, 4]);
    const prompter = confirming(yes);
    const r = await svc.run(['roles', 'revoke', '--file', path], { mode: 'table', prompter });
    expect(prompter.asked).toEqual([
      `Revoke the 2 role assignments listed in ${path} that are held (a row whose grant is not is skipped), in Acme Treasury (acme-treasury)?`,
    ]);
    expect(r.code).toBe(code);
    expect((await assignments(sandbox(), id)).active).toBe(yes ? 0 : 2);
    if (!yes) expect(r.stderr).toBe('error: cancelled; nothing was changed\n');
  });

  it('asks of one row in the singular (review29d L2)', async () => {
    const { path } = await granted([19]);
    const prompter = confirming(false);
    await svc.run(['roles', 'revoke', '--file', path], { mode: 'table', prompter });
    expect(prompter.asked).toEqual([
      `Revoke the 1 role assignment listed in ${path} that is held (a row whose grant is not is skipped), in Acme Treasury (acme-treasury)?`,
    ]);
  });

  it('prints each revocation; a second run reports the rows as not assigned', async () => {
    const clock = fixedClock();
    const { name, id, path } = await granted([5, 6]);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--concurrency', '1'], {
      clock,
      mode: 'table',
    });
    expect([r.code, r.stderr]).toEqual([0, '✓ 2 revoked in Acme Treasury (acme-treasury) (0.0 s)\n']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `LINE  STATUS  USER             ROLE      REVOKED  AUDIT TRAIL ID                DETAIL`,
    );
    expect(lines[1]).toMatch(
      new RegExp(`^2     ok      ${bulkUser(5)}  ${name}  now      aud_[0-9a-f]{24}  -$`),
    );
    expect(await held(sandbox(), bulkUser(5))).toEqual([]);
    const twice = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--json', '--concurrency', '1']);
    expect(twice.code).toBe(0);
    expect(JSON.parse(twice.stdout)).toEqual([
      {
        line: 2,
        status: 'skipped',
        user: bulkUser(5),
        role: name,
        role_id: id,
        tenant_id: ACME,
        reason: 'not_assigned',
      },
      {
        line: 3,
        status: 'skipped',
        user: bulkUser(6),
        role: name,
        role_id: id,
        tenant_id: ACME,
        reason: 'not_assigned',
      },
    ]);
  });

  it('a row of an unknown user fails with where to look, as `svc roles revoke USER ROLE` says it', async () => {
    const { name } = await granted([5]);
    const path = svc.file('ghost.csv', `user,role\nusr_ghost_x,${name}\n${bulkUser(5)},${name}\n`);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--concurrency', '1']);
    expect(r.code).toBe(7);
    expect(r.stdout.split('\n')[0]!.split('\t').slice(-1)[0]).toBe(
      'user usr_ghost_x not found; see `svc users ls` for the users of the tenant (`svc users ls --id ID` checks an id)',
    );
    expect(r.stderr).toContain(
      'fix the file and run it again: a new run, rows already revoked are skipped; or run the same command again with the same profile, logged in as the same user or with the same API key, to retry the failed rows',
    );
  });

  it('--dry-run says what would be revoked and what is not assigned', async () => {
    const { name } = await granted([7]);
    const other = svc.file('dry-revoke.csv', `user,role\n${bulkUser(7)},${name}\n${bulkUser(8)},${name}\n`);
    const r = await svc.run(['roles', 'revoke', '--file', other, '--dry-run', '--concurrency', '1']);
    expect(r.code).toBe(0);
    const grant = (await held(sandbox(), bulkUser(7)))[0]!.audit_trail_id;
    expect(r.stdout).toBe(
      `2\trevoke\t${bulkUser(7)}\t${name}\t\t${grant}\t\n3\tskip\t${bulkUser(8)}\t${name}\t\t\tnot_assigned\n`,
    );
    expect(r.stderr).toBe(
      'dry run: 1 would be revoked, 1 would be skipped, 0 would fail; nothing was changed\n',
    );
  });

  it('--dry-run on a terminal: the id column is named for the grant, the bar says checking, not revoking', async () => {
    const { path } = await granted([9]);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--dry-run'], {
      mode: 'table',
      progress: true,
    });
    expect(r.code, r.stderr).toBe(0);
    const grant = (await held(sandbox(), bulkUser(9)))[0]!.audit_trail_id;
    const [header, row] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^LINE +PLAN +USER +ROLE +REVOKED +GRANT AUDIT ID +DETAIL$/);
    expect(row).toContain(grant);
    expect(r.stderr).toContain('checking (dry run) [');
    expect(r.stderr).not.toContain('revoking');
  });

  it('--dry-run of a grant file: the bar says checking, not granting', async () => {
    const { name } = await granted([10]);
    const path = svc.file(
      'dry-grant.csv',
      `user,role,expires_in,justification\n${bulkUser(11)},${name},8h,x\n`,
    );
    const r = await svc.run(['roles', 'assign', '--file', path, '--dry-run'], { progress: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('checking (dry run) [');
    expect(r.stderr).not.toContain('granting');
  });
});
