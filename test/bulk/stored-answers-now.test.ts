import { describe, expect, it } from 'vitest';
import { ACME, afterResuming, assignments, bulkRunner, bulkUser, customRole, held } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { refusal, useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { timeless } from '../helpers/webhooks.js';

// review19d F5: a `roles revoke --file` run whose answers were all lost (an unknown outcome), run
// again after the grants were made again (another admin): the platform answers each row's key
// with its stored revocation (Idempotent-Replayed), and svc said "✓ 2 revoked", exit 0, while both
// users held the role. A row answered from the record is read again before it is counted: held
// again, it is a failed row saying so (exit 7), and the same command revokes the grant held now.
// The same of a grants file: a stored grant revoked since is not "granted".
const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
/** While true, every change's answer is lost (503 after the sandbox made it, every retry too). */
let losing = false;
/** The bulk users whose assignments svc read through the proxy, in order (a row's check of what holds now). */
const reads: string[] = [];
/** A bulk user whose grants cannot be read through the proxy (403), if any. */
let unreadable: string | undefined;
/** A bulk user whose grants are listed with the status word `granted` (one svc does not know), if any. */
let oddWords: string | undefined;
const proxy = useLossyProxy(sandbox, {
  refuse: (method, path) =>
    method === 'GET' && unreadable !== undefined && path.startsWith(`/v1/users/${unreadable}/roles`)
      ? refusal(403, 'forbidden', 'not allowed to read this user')
      : undefined,
  before: (method, path) => {
    const user = /^\/v1\/users\/(usr_bulk_\d+)\/roles(\?|$)/.exec(path)?.[1];
    if (method === 'GET' && user) reads.push(user);
  },
  reshape: (method, path, status, text) =>
    method === 'GET' && oddWords !== undefined && path.startsWith(`/v1/users/${oddWords}/roles`)
      ? { status, body: text.replaceAll('"status":"active"', '"status":"granted"') }
      : undefined,
  lose: (method, path) =>
    losing && (method === 'DELETE' || (method === 'POST' && /\/v1\/users\/[^/]+\/roles$/.test(path))),
});
const via = () => ({ env: { SVC_BASE_URL: proxy().url } });
const holds = async (user: number, roleId: string) =>
  (await held(sandbox(), bulkUser(user))).some((a) => a.role_id === roleId);
/** A grant made outside the run (another admin), straight to the sandbox. */
const grantAgain = async (user: number, role: string) => {
  const r = await svc.run([
    'roles',
    'assign',
    bulkUser(user),
    role,
    '--expires-in',
    '8h',
    '--justification',
    'again',
  ]);
  if (r.code !== 0) throw new Error(r.stderr);
};
const revokeNow = async (user: number, role: string) => {
  const r = await svc.run(['roles', 'revoke', bulkUser(user), role, '--yes']);
  if (r.code !== 0) throw new Error(r.stderr);
};

describe('a resumed bulk row answered from the platform’s record is checked against what holds now', () => {
  it('roles revoke --file: a user who holds the role again is no "revoked" row; exit 7; the same command revokes it', async () => {
    const { name, id, path } = await svc.grantedByFile('again-revoke', [1, 2]);
    const argv = ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'];
    losing = true;
    const first = await svc.run(argv, via());
    losing = false;
    expect(first.code).toBe(7);
    // A fresh answer (here none came) is never read again.
    expect(reads.splice(0)).toEqual([]);
    expect(ndjson(first.stdout).map((r) => [r.status, r.outcome])).toEqual([
      ['failed', 'unknown'],
      ['failed', 'unknown'],
    ]);
    // Both were revoked; user 1 is granted the role again meanwhile.
    expect((await assignments(sandbox(), id)).active).toBe(0);
    await grantAgain(1, name);

    const again = await svc.run(argv, via());
    const [one, two] = ndjson(again.stdout);
    expect([one.status, one.error?.code, two.status, two.reason, two.replayed]).toEqual([
      'failed',
      'changed_since',
      'ok',
      undefined,
      true,
    ]);
    expect(one.error.message).toMatch(
      new RegExp(
        `^revoked by the earlier run this one resumes at \\S+Z \\(the platform answered with its record of it\\), but ${bulkUser(1)} holds again-revoke again, granted at \\S+Z: not revoked now$`,
      ),
    );
    expect(one.error.hint).toBe(
      'if it should not hold it, run the same command again: it revokes the grant held now (a new request)',
    );
    expect(again.code).toBe(7);
    // Each row answered from the record is read once, no more.
    expect(reads.splice(0).sort()).toEqual([bulkUser(1), bulkUser(2)]);
    // The row still revoked was marked sent by the run this one resumes (review29c M3: every bulk
    // verb marks its items), so it is counted that run's; the counts have no ✓; the error names the row.
    const [counts, error] = timeless(afterResuming(again.stderr)).split('\n');
    expect(counts).toBe(
      '1 revoked by the run this one resumes, 1 failed in Acme Treasury (acme-treasury) (T)',
    );
    expect(JSON.parse(error ?? '').error.message).toBe(`1 of 2 items failed: line 2: ${one.error.message}`);
    // review20 F5: nothing in the file is wrong; the run's hint is the row's (the same command).
    expect(JSON.parse(error ?? '').error.hint).toMatch(
      /^if the 1 changed since should still be as asked \(another admin may have changed them on purpose\), run the same command again with the same profile, logged in as the same user or with the same API key, to make them anew \(a new request each\) \(journal \S+\)$/,
    );
    expect(again.stderr).not.toContain('✓');
    expect(await holds(1, id)).toBe(true);

    // The same command: a new request for that row, which revokes the grant held now.
    const third = await svc.run(argv, via());
    expect(ndjson(third.stdout).map((r) => [r.line, r.status, r.reason])).toEqual([
      [2, 'ok', undefined],
      [3, 'skipped', 'journal'],
    ]);
    expect([third.code, timeless(afterResuming(third.stderr))]).toEqual([
      0,
      '✓ 1 revoked, 1 skipped in Acme Treasury (acme-treasury) (T)\n',
    ]);
    expect(reads.splice(0)).toEqual([]);
    expect((await assignments(sandbox(), id)).active).toBe(0);
  });

  it('roles revoke --file: a stored revocation still so is counted revoked, with one read of the user', async () => {
    const { id, path } = await svc.grantedByFile('still-revoked', [3]);
    const argv = ['roles', 'revoke', '--file', path, '--yes', '--ndjson'];
    losing = true;
    expect((await svc.run(argv, via())).code).toBe(7);
    losing = false;
    reads.length = 0;
    const again = await svc.run(argv, via());
    expect(ndjson(again.stdout).map((r) => [r.status, r.replayed])).toEqual([['ok', true]]);
    expect(reads).toEqual([bulkUser(3)]);
    // Marked sent by the cut run (whose answer was lost): counted that run's (review29c M3).
    expect([again.code, timeless(again.stderr).split('\n').at(-2)]).toEqual([
      0,
      '✓ 1 revoked by the run this one resumes in Acme Treasury (acme-treasury) (T)',
    ]);
    expect((await assignments(sandbox(), id)).active).toBe(0);
  });

  it('roles assign --file: a stored grant revoked since is no "granted" row; exit 7; the same command grants it anew', async () => {
    const name = 'again-grant';
    const id = await customRole(sandbox(), name);
    const file = svc.file(
      'again-grant-2.csv',
      `user,role,expires_in,justification\n${bulkUser(4)},${name},8h,t\n${bulkUser(5)},${name},8h,t\n`,
    );
    const argv = ['roles', 'assign', '--file', file, '--ndjson', '--concurrency', '1'];
    losing = true;
    const first = await svc.run(argv, via());
    losing = false;
    expect(ndjson(first.stdout).map((r) => [r.status, r.outcome])).toEqual([
      ['failed', 'unknown'],
      ['failed', 'unknown'],
    ]);
    // Both were granted; user 4's grant is revoked meanwhile.
    expect([await holds(4, id), await holds(5, id)]).toEqual([true, true]);
    await revokeNow(4, name);

    const again = await svc.run(argv, via());
    const [one, two] = ndjson(again.stdout);
    expect([one.status, one.error?.code, two.status, two.replayed]).toEqual([
      'failed',
      'changed_since',
      'ok',
      true,
    ]);
    expect(one.error.message).toMatch(
      new RegExp(
        `^granted by the earlier run this one resumes at \\S+Z \\(the platform answered with its record of it\\), but it was revoked at \\S+Z: ${bulkUser(4)} does not hold again-grant now$`,
      ),
    );
    expect(again.code).toBe(7);
    expect(again.stderr).not.toContain('✓');

    const third = await svc.run(argv, via());
    expect(ndjson(third.stdout).map((r) => [r.line, r.status])).toEqual([
      [2, 'ok'],
      [3, 'skipped'],
    ]);
    expect(third.code).toBe(0);
    expect([await holds(4, id), await holds(5, id)]).toEqual([true, true]);
  });

  it('roles revoke --file: a stored revocation whose check cannot be read is not counted; the same command checks it again', async () => {
    const { id, path } = await svc.grantedByFile('unread-check', [7]);
    const argv = ['roles', 'revoke', '--file', path, '--yes', '--ndjson'];
    losing = true;
    expect((await svc.run(argv, via())).code).toBe(7);
    losing = false;
    unreadable = bulkUser(7);
    const again = await svc.run(argv, via()).finally(() => {
      unreadable = undefined;
    });
    const [row] = ndjson(again.stdout);
    expect([row.status, row.error?.code]).toEqual(['failed', 'forbidden']);
    expect(row.error.message).toMatch(
      /^revoked by the earlier run this one resumes at \S+Z \(the platform answered with its record of it\), but whether it is still so could not be read: /,
    );
    // fix-resume20's left-over: the row carries what to do (failure() kept hints of API errors only).
    expect(row.error.hint).toBe('run the same command again to check it again');
    expect(again.code).toBe(7);
    // Not journaled: the same command sends the same key, is answered the same, and checks again.
    const third = await svc.run(argv, via());
    expect(ndjson(third.stdout).map((r) => [r.status, r.replayed])).toEqual([['ok', true]]);
    expect(third.code).toBe(0);
    expect((await assignments(sandbox(), id)).active).toBe(0);
  });

  it("roles assign --file: a stored grant listed in a status word svc does not know is not counted; the row names the command to look (with the run's flags)", async () => {
    const name = 'odd-words';
    await customRole(sandbox(), name);
    const file = svc.file(
      'odd-words.csv',
      `user,role,expires_in,justification\n${bulkUser(9)},${name},8h,t\n`,
    );
    const argv = ['--tenant', ACME, 'roles', 'assign', '--file', file, '--ndjson'];
    losing = true;
    expect((await svc.run(argv, via())).code).toBe(7);
    losing = false;
    oddWords = bulkUser(9);
    const again = await svc.run(argv, via()).finally(() => {
      oddWords = undefined;
    });
    const [row] = ndjson(again.stdout);
    expect([row.status, row.error?.code]).toEqual(['failed', 'unknown_status']);
    expect(row.error.hint).toBe(`check it with svc --tenant ${ACME} roles assignments ${bulkUser(9)}`);
    expect(again.code).toBe(7);
  });
});
