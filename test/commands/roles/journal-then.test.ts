// A resumed `roles assign/revoke --file` (and its dry run) shows the rows an earlier run finished as
// that run's (reason `journal`, what it found then in `reason_then`), never as found now: the
// grant an earlier run found in place may be gone since, and one it found missing may be held.
import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole, held } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { ACME, useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
let roles = 0;
const GHOST = 'usr_ghost_of_a_user';

describe('a resumed bulk role run: rows an earlier run skipped are said as then', () => {
  it('assign: a row found already assigned, revoked since, is not said already_assigned now', async () => {
    const name = `then-${++roles}`;
    const id = await customRole(sandbox(), name);
    const user = bulkUser(1);
    const single = ['roles', 'assign', user, name, '--expires-in', '1h', '--justification', 'pre'];
    expect((await svc.run(single)).code).toBe(0);
    const path = svc.file(
      `${name}.csv`,
      `user,role,expires_in,justification\n${user},${name},1h,x\n${GHOST},${name},1h,x\n`,
    );
    const first = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1']);
    expect(first.code).toBe(7);
    expect(ndjson(first.stdout)[0]).toMatchObject({ line: 2, status: 'skipped', reason: 'already_assigned' });
    // The grant ends meanwhile.
    expect((await svc.run(['roles', 'revoke', user, name, '--yes'])).code).toBe(0);
    expect((await held(sandbox(), user)).some((a) => a.role_id === id)).toBe(false);

    const plan = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--ndjson']);
    expect(ndjson(plan.stdout)[0]).toMatchObject({
      line: 2,
      plan: 'skip',
      reason: 'journal',
      reason_then: 'already_assigned',
    });
    const table = await svc.run(['roles', 'assign', '--file', path, '--dry-run'], { mode: 'table' });
    expect(table.stdout.split('\n').find((l) => l.startsWith('2 '))).toMatch(
      /already_assigned in an earlier run\s*$/,
    );
    const again = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1']);
    expect(ndjson(again.stdout)[0]).toMatchObject({
      line: 2,
      status: 'skipped',
      reason: 'journal',
      reason_then: 'already_assigned',
    });
  });

  it('revoke: a row found not assigned, granted since, is not said not_assigned now', async () => {
    const name = `then-${++roles}`;
    await customRole(sandbox(), name);
    const user = bulkUser(2);
    const path = svc.file(`${name}-r.csv`, `user,role\n${user},${name}\n${GHOST},${name}\n`);
    const argv = ['roles', 'revoke', '--file', path, '--yes', '--concurrency', '1'];
    const first = await svc.run([...argv, '--ndjson']);
    expect(first.code).toBe(7);
    expect(ndjson(first.stdout)[0]).toMatchObject({ line: 2, status: 'skipped', reason: 'not_assigned' });
    const grant = ['roles', 'assign', user, name, '--expires-in', '1h', '--justification', 'meanwhile'];
    expect((await svc.run(grant)).code).toBe(0);

    const again = await svc.run([...argv, '--ndjson']);
    expect(ndjson(again.stdout)[0]).toEqual({
      line: 2,
      status: 'skipped',
      user,
      role: name,
      role_id: expect.any(String),
      tenant_id: ACME,
      reason: 'journal',
      reason_then: 'not_assigned',
    });
    const plain = await svc.run(argv);
    expect(plain.stdout.split('\n')[0]).toMatch(/\tnot_assigned in an earlier run$/);
  });

  it('a row the earlier run granted: "done in an earlier run" in the table', async () => {
    const name = `then-${++roles}`;
    await customRole(sandbox(), name);
    const path = svc.file(
      `${name}.csv`,
      `user,role,expires_in,justification\n${bulkUser(3)},${name},1h,x\n${GHOST},${name},1h,x\n`,
    );
    expect((await svc.run(['roles', 'assign', '--file', path])).code).toBe(7);
    const again = await svc.run(['roles', 'assign', '--file', path]);
    expect(again.stdout.split('\n')[0]).toMatch(/\tdone in an earlier run$/);
    const json = await svc.run(['roles', 'assign', '--file', path, '--ndjson']);
    expect(ndjson(json.stdout)[0]).toMatchObject({ status: 'skipped', reason: 'journal' });
    expect(ndjson(json.stdout)[0]).not.toHaveProperty('reason_then');
  });
});
