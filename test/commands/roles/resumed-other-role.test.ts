import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACME, assignments, bulkRunner, bulkUser, customRole, held } from '../../helpers/bulk.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// attack29b F1/F2: a resumed grants (or revocations) file took its done rows on trust: once the
// role name meant another role (renamed, or deleted and made again, or the platform's state reset)
// it said `✓ … skipped` with the new role's id beside the old run's audit id, exit 0, and its
// in-flight row failed as idempotency_key_reused with no word of why. Now the journal keeps each
// name's role id, and such a resume is refused before anything is sent (exit 6, as apply's).
const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);

const rename = async (id: string, name: string) => {
  const r = await call(sandbox(), 'PATCH', `/v1/roles/${id}`, {
    token: sandbox().adminToken,
    tenant: ACME,
    body: { name },
  });
  if (r.status !== 200) throw new Error(`rename: ${r.status} ${r.text}`);
};

/**
 * Writes to users' role assignments the sandbox answered, by method (review29c L4: the checks of
 * what the platform holds passed on the old code too; a count of requests can fail).
 */
async function assignmentWrites(): Promise<Record<string, number>> {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  const writes: Record<string, number> = { POST: 0, PATCH: 0, DELETE: 0 };
  for (const [key, n] of Object.entries(stats)) {
    const [method, route] = key.split(' ');
    if (method !== undefined && method in writes && /^\/v1\/users\/[^/]+\/roles/.test(route ?? ''))
      writes[method] = (writes[method] ?? 0) + n;
  }
  return writes;
}

/** A first run of `kind` whose last row (an unknown user) fails: its journal is kept, 3 rows done. */
async function cutRun(kind: 'assign' | 'revoke', name: string, users: number[]) {
  const rows = [...users.map((n) => `${bulkUser(n)},${name},8h,t`), `usr_no_such_user,${name},8h,t`];
  const header = kind === 'assign' ? 'user,role,expires_in,justification' : 'user,role';
  const body = kind === 'assign' ? rows : rows.map((r) => r.split(',').slice(0, 2).join(','));
  const file = svc.file(`${name}.csv`, `${header}\n${body.join('\n')}\n`);
  const journal = join(svc.dir, `${name}.journal`);
  const argv = ['roles', kind, '--file', file, '--journal', journal, '--concurrency', '1', '--yes'];
  const first = await svc.run(argv);
  expect(first.code, first.stderr).toBe(7);
  return { argv, journal };
}

describe('a resumed roles file whose role name now means another role', () => {
  it('assign, the role renamed and another made with its name: refused, nothing sent', async () => {
    const name = `fx5-${Date.now()}`;
    const oldId = await customRole(sandbox(), name);
    const { argv, journal } = await cutRun('assign', name, [1, 2, 3]);
    await rename(oldId, `${name}-old`);
    const newId = await customRole(sandbox(), name);
    const writes = await assignmentWrites();

    for (const more of [['--dry-run'], []]) {
      const again = await svc.run([...argv, ...more]);
      expect(again.code, again.stderr).toBe(6);
      expect(again.stdout).toBe('');
      expect(again.stderr).toBe(
        `error: cannot resume: the earlier run of this file granted role ${name} as ${oldId} (3 rows done), but ${name} is now another role (${newId}) and ${oldId} is now named ${name}-old; nothing was sent; see what the earlier run did (svc roles holders ${name}-old), then remove the journal ${journal} and run the same command again: a new run grants the roles the file names now (grants already in place are skipped)\n`,
      );
    }
    expect(await assignmentWrites()).toEqual(writes);
    expect((await assignments(sandbox(), newId)).total).toBe(0);
    expect(readFileSync(journal, 'utf8')).toContain(`"subjects":{"${name}":"${oldId}"}`);
  });

  it('assign, the role deleted and made again, a row in flight: refused, the in-flight row named', async () => {
    const name = `fx6-${Date.now()}`;
    const oldId = await customRole(sandbox(), name);
    const { argv, journal } = await cutRun('assign', name, [4, 5, 6]);
    // A run killed while its third row was in flight: that row's line is a `sent` mark.
    const lines = readFileSync(journal, 'utf8').split('\n').filter(Boolean);
    const kept = lines.filter((l) => !/"key":"4"|"finished"/.test(l));
    writeFileSync(journal, `${[...kept, '{"sent":"4"}'].join('\n')}\n`);
    await call(sandbox(), 'DELETE', `/v1/users/${bulkUser(4)}/roles/${oldId}`, {
      token: sandbox().adminToken,
      tenant: ACME,
    });
    const del = await call(sandbox(), 'DELETE', `/v1/roles/${oldId}`, {
      token: sandbox().adminToken,
      tenant: ACME,
    });
    expect([200, 204]).toContain(del.status);
    const newId = await customRole(sandbox(), name);
    const writes = await assignmentWrites();

    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(6);
    expect(again.stderr).toBe(
      `error: cannot resume: the earlier run of this file granted role ${name} as ${oldId} (2 rows done, 1 row in flight), but ${name} is now another role (${newId}) and ${oldId} is no longer listed (deleted, or the platform's state was reset); nothing was sent; remove the journal ${journal} and run the same command again: a new run grants the roles the file names now (grants already in place are skipped)\n`,
    );
    expect(await assignmentWrites()).toEqual(writes);
    expect(await held(sandbox(), bulkUser(6))).toEqual([]);
  });

  it('revoke, the role renamed: refused, nothing revoked', async () => {
    const name = `fx7-${Date.now()}`;
    const granted = await svc.grantedByFile(name, [7, 8, 9, 10]);
    const { argv, journal } = await cutRun('revoke', name, [7, 8]);
    await rename(granted.id, `${name}-old`);
    const newId = await customRole(sandbox(), name);
    const writes = await assignmentWrites();
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(6);
    expect(again.stderr).toBe(
      `error: cannot resume: the earlier run of this file revoked role ${name} as ${granted.id} (2 rows done), but ${name} is now another role (${newId}) and ${granted.id} is now named ${name}-old; nothing was sent; see what the earlier run did (svc roles holders ${name}-old), then remove the journal ${journal} and run the same command again: a new run revokes the roles the file names now (roles not held are skipped)\n`,
    );
    expect(await assignmentWrites()).toEqual(writes);
    expect((await held(sandbox(), bulkUser(9))).map((a) => a.role_id)).toContain(granted.id);
  });

  it("an earlier svc's journal (no role ids) with rows done: not counted done, refused", async () => {
    const name = `fx8-${Date.now()}`;
    await customRole(sandbox(), name);
    const { argv, journal } = await cutRun('assign', name, [1, 2, 3]);
    const [first, ...rest] = readFileSync(journal, 'utf8').split('\n');
    const header = JSON.parse(first!);
    delete header.subjects;
    writeFileSync(journal, [JSON.stringify(header), ...rest].join('\n'));
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(6);
    expect(again.stderr).toBe(
      `error: cannot resume: the journal ${journal} was written by an earlier svc, which did not note which role each row granted (3 rows done), so they cannot be counted done: a role's name may mean another role now; nothing was sent; remove the journal and run the same command again: a new run grants the roles the file names now (grants already in place are skipped)\n`,
    );
  });

  it('rows naming the role by its id: a rename changes nothing they mean, the resume goes on', async () => {
    const name = `fx10-${Date.now()}`;
    const id = await customRole(sandbox(), name);
    const { argv } = await cutRun('assign', id, [4, 5, 6]);
    await rename(id, `${name}-old`);
    await customRole(sandbox(), name);
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(7);
    expect(again.stdout.split('\n').filter((l) => /\tskipped\t/.test(l))).toHaveLength(3);
  });

  it('a role none of whose rows were done, renamed and made again: not compared, the resume goes on', async () => {
    // review29c M1: every role the file names was compared, with the whole run's counts: `rb`'s
    // one row failed (nothing done with it), yet the resume was refused as `rb … (3 rows done)`.
    const ra = `fx11a-${Date.now()}`;
    const rb = `fx11b-${Date.now()}`;
    await customRole(sandbox(), ra);
    const oldRb = await customRole(sandbox(), rb);
    const rows = [1, 2, 3].map((n) => `${bulkUser(n)},${ra},8h,t`);
    const file = svc.file(
      `${ra}.csv`,
      `user,role,expires_in,justification\n${[...rows, `usr_no_such_user,${rb},8h,t`].join('\n')}\n`,
    );
    const journal = join(svc.dir, `${ra}.journal`);
    const argv = ['roles', 'assign', '--file', file, '--journal', journal, '--concurrency', '1', '--yes'];
    const first = await svc.run(argv);
    expect(first.code, first.stderr).toBe(7);
    await rename(oldRb, `${rb}-old`);
    await customRole(sandbox(), rb);
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(7);
    expect(again.stderr).not.toMatch(/cannot resume/);
    expect(again.stdout.split('\n').filter((l) => /\tskipped\t/.test(l))).toHaveLength(3);
  });

  it('two roles, only one changed: its own rows are counted', async () => {
    const ra = `fx12a-${Date.now()}`;
    const rb = `fx12b-${Date.now()}`;
    await customRole(sandbox(), ra);
    const oldRb = await customRole(sandbox(), rb);
    const rows = [`${bulkUser(1)},${ra},8h,t`, `${bulkUser(2)},${ra},8h,t`, `${bulkUser(3)},${rb},8h,t`];
    const file = svc.file(
      `${ra}.csv`,
      `user,role,expires_in,justification\n${[...rows, `usr_no_such_user,${rb},8h,t`].join('\n')}\n`,
    );
    const journal = join(svc.dir, `${ra}.journal`);
    const argv = ['roles', 'assign', '--file', file, '--journal', journal, '--concurrency', '1', '--yes'];
    const first = await svc.run(argv);
    expect(first.code, first.stderr).toBe(7);
    await rename(oldRb, `${rb}-old`);
    const newRb = await customRole(sandbox(), rb);
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(6);
    expect(again.stderr).toMatch(
      new RegExp(
        `^error: cannot resume: the earlier run of this file granted role ${rb} as ${oldRb} \\(1 row done\\), but ${rb} is now another role \\(${newRb}\\)`,
      ),
    );
  });

  it('the same role, nothing changed: the resume goes on as before', async () => {
    const name = `fx9-${Date.now()}`;
    await customRole(sandbox(), name);
    const { argv } = await cutRun('assign', name, [1, 2, 3]);
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(7);
    expect(again.stdout).toMatch(/\tskipped\t/);
  });
});
